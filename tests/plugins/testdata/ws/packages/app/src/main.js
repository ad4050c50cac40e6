import { add } from 'lib';

export const three = add(1, 2);
