import { test, expect } from 'vitest';

test('lib-a', () => {
  expect('lib-a').toBeTruthy();
});
