// zod/mini: the same validator as `zod`, tree-shakable, so the bundle stays small
// (the classic API alone is ~450 KB minified). English messages are loaded once here.
//
// Bundle size: this module re-exports zod/mini's members (`export *`) and its users import it
// as a namespace (`import * as z from './zod'`), so esbuild sees every `z.member` and keeps
// only those. Exporting the namespace object itself (`export { z }`) made esbuild keep all of
// zod/mini, every locale included: about 430 KB of the bundle instead of about 30 KB.
import { config, type ZodMiniType } from 'zod/mini';
import { en } from 'zod/locales';

config(en());

export * from 'zod/mini';
export type ZodSchema<T> = ZodMiniType<T>;
