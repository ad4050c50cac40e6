import { b } from '@fx/lib-b';
export const app = b + 1;
