import { test, expect } from 'vitest';
import { three } from './main.js';

test('three', () => {
  expect(three).toBe(3);
});
