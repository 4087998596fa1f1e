// The part of jStat (no bundled types) that lift-statistics.ts uses.
declare module 'jstat' {
  export const jStat: {
    studentt: { inv(p: number, dof: number): number };
  };
}
