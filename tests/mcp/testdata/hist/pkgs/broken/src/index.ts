export const n: number = 1;
