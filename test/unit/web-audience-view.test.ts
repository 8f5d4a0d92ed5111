import { describe, expect, it } from 'vitest';
import { errorTypeRows } from '../../web/src/admin/views/audience';
import type { AudienceReport } from '../../web/src/admin/api';

const report = (errorTypes: { name: string; count: number }[]) => ({ totals: { errorTypes } }) as unknown as AudienceReport;

describe('the audience panel', () => {
  it('lists the errors by type as the API orders them, each with its share', () => {
    expect(errorTypeRows(report([{ name: 'fragLoadError', count: 1_200 }, { name: 'MEDIA_ERR_DECODE', count: 300 }]))).toEqual([
      { name: 'fragLoadError', count: `${(1_200).toLocaleString()} (80 %)` },
      { name: 'MEDIA_ERR_DECODE', count: '300 (20 %)' },
    ]);
    expect(errorTypeRows(report([]))).toEqual([]);
  });
});
