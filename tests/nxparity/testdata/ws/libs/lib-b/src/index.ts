import { a } from '@fx/lib-a';
export const b = a + 1;
