import { test, expect } from 'vitest';

test('app', () => {
  expect('app').toBeTruthy();
});
