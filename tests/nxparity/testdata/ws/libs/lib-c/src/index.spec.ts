import { test, expect } from 'vitest';

test('lib-c', () => {
  expect('lib-c').toBeTruthy();
});
