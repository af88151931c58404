// zod/mini: the same validator as `zod`, tree-shakable, so the bundle stays small
// (the classic API alone is ~450 KB minified). English messages are loaded once here.
import * as z from 'zod/mini';
import { en } from 'zod/locales';

z.config(en());

export { z };
export type ZodSchema<T> = z.ZodMiniType<T>;
