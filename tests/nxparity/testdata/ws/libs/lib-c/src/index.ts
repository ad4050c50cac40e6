
export const c = 3;
