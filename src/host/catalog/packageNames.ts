// The package names and versions a registry gives become words of a command line (`npx -y
// NAME@VERSION`, `uvx NAME==VERSION`, `dnx NAME@VERSION`, `docker run … IMAGE`). A registry is a
// remote party: a "name" such as `--call=touch x` or `--privileged` would be read as an option of
// the command, and a "version" such as a URL, `file:` or `git+` would fetch something else. Each
// kind has its own small check here: the ecosystem's name format, and a plain version. The
// patterns are single character classes (or a class, then a disjoint one), so they run in time
// linear in the text; lengths are checked first.
import { shownServerText } from '../../util/serverText';

/** A plain version: `1.2.3`, `2026.8.31`, `1.0.0-beta.1+build`, `1.0.0rc1`, `latest`. No URL, path or range. */
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/;

/**
 * An npm name: letters, digits and `-._~` (not first: `-` `.` `_`), optionally under `@scope/`.
 * Uppercase is allowed: new names cannot have it, but older packages (JSONStream) do.
 */
const NPM_PART = /^[A-Za-z0-9~][A-Za-z0-9._~-]*$/;
const NPM_MAX = 214;

/** A PyPI name (PEP 508): letters, digits and `._-`, beginning and ending with a letter or digit. */
const PYPI_NAME = /^[A-Za-z0-9._-]+$/;
const PYPI_MAX = 214;

/** A NuGet id: letters, digits and `._-`, at most 100 characters, not beginning or ending with `.` or `-`. */
const NUGET_ID = /^[A-Za-z0-9._-]+$/;
const NUGET_MAX = 100;

/** An OCI image reference: `[host[:port]/]path[:tag][@algorithm:digest]`. */
const OCI_HOST = /^[A-Za-z0-9][A-Za-z0-9.-]*(?::[0-9]{1,5})?$/;
const OCI_PATH_COMPONENT = /^[a-z0-9][a-z0-9._-]*$/;
const OCI_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const OCI_DIGEST = /^[a-z0-9][a-z0-9.+_-]*:[A-Za-z0-9=_-]+$/;
const OCI_MAX = 512;

/** Why `version` is not a plain version (the words "the … version" name the field), or undefined. */
export function versionProblem(version: string, field = 'the version'): string | undefined {
  if (VERSION.test(version)) return undefined;
  return `${field} ${shownServerText(version, 80)} is not a plain version (letters, digits and ".+_-", at most 64 characters, not a URL, path or range)`;
}

export function npmNameProblem(name: string): string | undefined {
  const slash = name.indexOf('/');
  const parts = name.startsWith('@') && slash > 1 ? [name.slice(1, slash), name.slice(slash + 1)] : [name];
  const ok = name.length <= NPM_MAX && parts.every((p) => NPM_PART.test(p));
  return ok ? undefined : `the npm package name ${shownServerText(name, 80)} is not an npm name (letters, digits and "-._~", optionally under @scope/, not beginning with "-", "." or "_")`;
}

export function pypiNameProblem(name: string): string | undefined {
  const ok = name.length <= PYPI_MAX && PYPI_NAME.test(name) && isAlphanumeric(name[0]) && isAlphanumeric(name[name.length - 1]);
  return ok ? undefined : `the PyPI package name ${shownServerText(name, 80)} is not a PyPI name (letters, digits and "._-", beginning and ending with a letter or digit)`;
}

export function nugetIdProblem(id: string): string | undefined {
  const edge = (c: string) => c !== '.' && c !== '-';
  const ok = id.length <= NUGET_MAX && NUGET_ID.test(id) && edge(id[0]) && edge(id[id.length - 1]);
  return ok ? undefined : `the NuGet package id ${shownServerText(id, 80)} is not a NuGet id (letters, digits and "._-", not beginning or ending with "." or "-", at most 100 characters)`;
}

/** `image`, `image:tag`, `host:5000/org/image:tag@sha256:…`. */
export function ociReferenceProblem(reference: string): string | undefined {
  return ociReferenceIsValid(reference)
    ? undefined
    : `the container image ${shownServerText(reference, 80)} is not an image reference ([host[:port]/]path[:tag][@digest]: lowercase path components, not beginning with "-")`;
}

function ociReferenceIsValid(reference: string): boolean {
  if (reference.length > OCI_MAX) return false;
  const at = reference.indexOf('@');
  const named = at === -1 ? reference : reference.slice(0, at);
  if (at !== -1 && !OCI_DIGEST.test(reference.slice(at + 1))) return false;
  const lastSlash = named.lastIndexOf('/');
  const colon = named.indexOf(':', lastSlash + 1);
  const name = colon === -1 ? named : named.slice(0, colon);
  if (colon !== -1 && !OCI_TAG.test(named.slice(colon + 1))) return false;
  const components = name.split('/');
  // The first of several components may be a registry host (`docker.io`, `localhost:5000`).
  const first = components.length > 1 && OCI_HOST.test(components[0]) ? 1 : 0;
  return components.slice(first).every((c) => OCI_PATH_COMPONENT.test(c));
}

function isAlphanumeric(c: string | undefined): boolean {
  return c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
}
