import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../functions/http/route-table';

/** docs/api.md names routes as `METHOD /path/:param`; the route table as `METHOD /path/{param}`. */
const documented = () => {
  const text = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const names = [...text.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/api\/[^`?\s]*)/g)].map(([, method, path]) => `${method} ${path}`);
  return new Set(names);
};
const asDocumented = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

describe('docs/api.md', () => {
  it('documents every route of the route table', () => {
    const names = documented();
    const missing = routeTable.map((spec) => `${spec.method} ${asDocumented(spec.path)}`).filter((name) => !names.has(name));
    expect(missing).toEqual([]);
  });

  it('documents no route the table does not have', () => {
    const routes = new Set(routeTable.map((spec) => `${spec.method} ${asDocumented(spec.path)}`));
    expect([...documented()].filter((name) => !routes.has(name))).toEqual([]);
  });
});
