import type { FilterPattern } from '../../infra/lib/triggers';

/** Lambda's event filtering (the EventBridge pattern syntax): the rules this project uses, and an error for the others. */
export function matchesFilter(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) {
    const candidates = Array.isArray(value) ? value : [value];
    return pattern.some((rule) => candidates.some((candidate) => matchesRule(rule, candidate)));
  }
  if (pattern && typeof pattern === 'object') {
    return Object.entries(pattern).every(([key, inner]) => matchesFilter(inner, value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined));
  }
  throw new Error(`filter pattern ${JSON.stringify(pattern)}: values must be arrays`);
}

function matchesRule(rule: unknown, value: unknown): boolean {
  if (rule === null || typeof rule !== 'object') return rule === value;
  const [operator, operand] = Object.entries(rule)[0]!;
  switch (operator) {
    case 'prefix':
      return typeof value === 'string' && value.startsWith(String(operand));
    case 'suffix':
      return typeof value === 'string' && value.endsWith(String(operand));
    case 'exists':
      return (value !== undefined) === operand;
    case 'anything-but':
      return value !== undefined && ![operand].flat().includes(value);
    case 'equals-ignore-case':
      return typeof value === 'string' && value.toLowerCase() === String(operand).toLowerCase();
    default:
      throw new Error(`filter rule ${operator} is not implemented in local/triggers/filter.ts`);
  }
}

/** Whether an event source mapping with `filters` hands `record` over: no filter, or one that matches. */
export function passesFilters(filters: readonly FilterPattern[], record: unknown): boolean {
  return filters.length === 0 || filters.some((pattern) => matchesFilter(pattern, record));
}
