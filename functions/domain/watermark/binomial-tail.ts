/**
 * Natural log of P(X ≥ k) for X ~ Binomial(m, p). With p = 1/2 it is how likely a session whose bits
 * are independent of the copy (an innocent: its bits come from a key the copier never had) agrees
 * with it on at least k of m segments. Exact, summed in log space, so tails far below 1e-300 still compare.
 */
export function logBinomialTail(m: number, k: number, p = 0.5): number {
  if (!Number.isInteger(m) || m < 0 || !Number.isInteger(k)) throw new RangeError('m and k must be integers, m ≥ 0');
  if (!(p >= 0 && p <= 1)) throw new RangeError('p must lie in [0, 1]');
  if (k <= 0) return 0;
  if (k > m || p === 0) return -Infinity;
  if (p === 1) return 0;
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  // log of the i-th term, from the k-th by the ratio C(m, i+1)/C(m, i) = (m-i)/(i+1).
  let term = logChoose(m, k) + k * logP + (m - k) * logQ;
  const terms = [term];
  for (let i = k; i < m; i++) {
    term += Math.log((m - i) / (i + 1)) + logP - logQ;
    terms.push(term);
  }
  const max = Math.max(...terms);
  return max + Math.log(terms.reduce((acc, t) => acc + Math.exp(t - max), 0));
}

function logChoose(m: number, k: number): number {
  const small = Math.min(k, m - k);
  let value = 0;
  for (let i = 1; i <= small; i++) value += Math.log((m - small + i) / i);
  return value;
}
