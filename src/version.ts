// The version in package.json, the one place it is written. esbuild bundles only this field.
import { version } from '../package.json';

/** This package's version (the extension's and the CLI's clientInfo, `mcp-host --version`). */
export const VERSION: string = version;
