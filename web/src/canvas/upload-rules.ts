// What POST /api/upload takes (GET /api/client-config `uploads`: the size limit and the accepted image types), and
// the words a refusal is said in: "notes.txt is not an accepted image (PNG, JPEG, …)", "big.png is over 4 MB".
// Until the configuration is known (or when it cannot be read) the client holds to SPEC.md's default limit (4 MB)
// and leaves the type to the service, which detects it from the bytes.
import type { ClientConfig } from '../hooks/use-client-config';

export type UploadRules = ClientConfig['uploads'];

/** SPEC.md §8: the default request body limit. No types: the client refuses none before the service has judged. */
export const DEFAULT_UPLOAD_RULES: UploadRules = { maxBytes: 4 * 1024 * 1024, types: [] };

/** Named when the service's list is unknown: SPEC.md §4's list of upload types. */
const SPEC_TYPE_NAMES = 'PNG, JPEG, GIF, WebP';

const KB = 1024;
const MB = 1024 * KB;
const oneDecimal = (n: number) => String(Math.round(n * 10) / 10);

/** A size as people read it: "4 MB", "20 KB", "1.5 MB", "900 bytes" (1 MB = 1024 KB, as the limit is set). */
export function formatBytes(bytes: number): string {
  if (bytes >= MB) return `${oneDecimal(bytes / MB)} MB`;
  if (bytes >= KB) return `${oneDecimal(bytes / KB)} KB`;
  return `${bytes} bytes`;
}

/** "PNG, JPEG, WebP, …": the names of the accepted types. */
export const acceptedNames = (rules: UploadRules): string => (rules.types.length > 0 ? rules.types.map((t) => t.name).join(', ') : SPEC_TYPE_NAMES);

/** The file picker's `accept`: the types and their extensions (image/* while they are unknown). */
export const acceptAttribute = (rules: UploadRules): string =>
  rules.types.length > 0 ? rules.types.flatMap((t) => [t.type, ...t.extensions.map((e) => `.${e}`)]).join(',') : 'image/*';

const extensionOf = (name: string) => (name.includes('.') ? name.split('.').pop()!.toLowerCase() : '');

/** Browsers' other names for accepted types. */
const ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'image/x-ms-bmp': 'image/bmp', 'image/x-png': 'image/png' };

/**
 * Whether the file is of an accepted type as far as its declared type and its name tell: `true`, `false`, or
 * `undefined` when neither says (no type, an unknown extension): the service decides from the bytes.
 */
export function acceptedType(file: File, rules: UploadRules): boolean | undefined {
  if (rules.types.length === 0) return undefined;
  const declared = ALIASES[file.type] ?? file.type;
  if (rules.types.some((t) => t.type === declared)) return true;
  const ext = extensionOf(file.name);
  if (ext && rules.types.some((t) => t.extensions.includes(ext))) return true;
  if (declared === '' || declared === 'application/octet-stream') return ext ? false : undefined;
  return false;
}

export const fileName = (file: File) => file.name || 'The pasted image';

export const notAcceptedMessage = (file: File, rules: UploadRules) => `${fileName(file)} is not an accepted image (${acceptedNames(rules)})`;
export const tooLargeMessage = (file: File, rules: UploadRules) => `${fileName(file)} is over ${formatBytes(rules.maxBytes)}`;

/** Types this browser can decode and re-encode smaller (what the downscale offer is made for). */
const DOWNSCALABLE = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/bmp', 'image/avif']);
const DOWNSCALABLE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'jfif', 'webp', 'gif', 'bmp', 'avif']);

/** Whether a file over the limit can be offered a downscale in the browser. */
export const canDownscale = (file: File): boolean =>
  DOWNSCALABLE.has(ALIASES[file.type] ?? file.type) || (file.type === '' && DOWNSCALABLE_EXTENSIONS.has(extensionOf(file.name)));
