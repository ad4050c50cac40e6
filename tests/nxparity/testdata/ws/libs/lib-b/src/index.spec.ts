import { test, expect } from 'vitest';

test('lib-b', () => {
  expect('lib-b').toBeTruthy();
});
