import type { CodeStore } from '../../functions/domain/codes';
import { domainFixture } from './domain-fixture';
import { MemoryJobQueue } from '../../harness/memory-job-queue';

/** The domain fixture with a job queue; `wrap` may replace methods of the codes port (given the real port). */
export function jobFixture(wrap: (codes: CodeStore) => Partial<CodeStore> = () => ({})) {
  const fixture = domainFixture(new Date().toISOString());
  const real = fixture.stores.codes;
  const overrides = wrap(real);
  const codes = new Proxy(real, {
    get: (target, name) => {
      const value = (overrides as Record<string | symbol, unknown>)[name] ?? Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const queue = new MemoryJobQueue();
  const stores = { ...fixture.stores, codes };
  return { fixture, memory: fixture.stores, deps: { ...fixture.deps, stores, queue }, queue };
}
