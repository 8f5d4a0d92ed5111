/**
 * The admin console's view-models stay without the DOM: no model imports the element builder, the UI helpers
 * or a view, nor reaches for `document`, `window` or `location` (what draws lives in views/).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const MODELS = join(import.meta.dirname, '../../web/src/admin/models');

describe('admin view-models', () => {
  const files = readdirSync(MODELS).filter((name) => name.endsWith('.ts'));

  it('are there', () => {
    expect(files).toEqual(expect.arrayContaining(['codes-model.ts', 'newest-answer.ts', 'cursor-pager-model.ts']));
  });

  it.each(files)('%s imports nothing that draws and touches no page globals', (name) => {
    const source = readFileSync(join(MODELS, name), 'utf8');
    const imports = [...source.matchAll(/^import[^;]*from '([^']+)'/gm)].map((match) => match[1]);
    expect(imports.filter((path) => /shared\/dom|\/ui$|views\/|hls\.js/.test(path!))).toEqual([]);
    expect(source).not.toMatch(/\b(document|window|location|HTMLElement)\b/);
  });
});
