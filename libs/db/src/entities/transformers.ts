import { ValueTransformer } from 'typeorm';

/** bigint / numeric columns arrive from pg as strings; money in minor units fits a JS number. */
export const numeric: ValueTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | null) => (v === null || v === undefined ? v : Number(v)),
};
