import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A path inside the repository, whatever the working directory (cdk, vitest, tsx). */
export const repoPath = (...parts: string[]) => resolve(root, ...parts);
