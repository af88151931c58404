// Where the bench keeps what it builds: under out/ (git-ignored, like the compiled tests).
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const OURS_BUNDLE = fileURLToPath(new URL('../out/bench/ours.cjs', import.meta.url));
