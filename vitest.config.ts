import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // 2-core machines: end-to-end suites run ffmpeg and chromium, so keep workers few.
    maxWorkers: 2,
    // expect.poll waits for a condition, never asserts on time: its default 1 s gives up on a loaded machine
    // (an admin action's request and the page's redraw took longer while the whole suite ran).
    expect: { poll: { timeout: 15_000 } },
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
