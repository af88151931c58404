// Schema validation lives on the host floor (src/host/validation.ts), shared with the CLI.
export * from '../../host/validation';
