// Connection settings checked when the configuration is read (src/config.ts): a malformed DATABASE_CONNECTION_STRING
// or OBJECT_STORAGE_CONNECTION_STRING stops the start with a problem naming the setting and what is wrong with it —
// not the "Invalid URL" a driver would throw later, nor a connection attempt to a host made of half a password. The
// values themselves are never echoed: they carry passwords and keys.

/** A URL, or undefined when the text is none. */
function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

const ENCODE_HINT = 'percent-encode special characters (@ : / # ? %) in the user name and password';

/** The problem with DATABASE_CONNECTION_STRING, if any (`postgres://user:password@host:port/database?options`). */
export function databaseUrlProblem(value: string): string | undefined {
  const name = 'DATABASE_CONNECTION_STRING';
  if (!/^postgres(ql)?:\/\//.test(value)) return `${name} must be a postgres:// URL`;
  const url = urlOf(value);
  if (!url) return `${name} is not a valid URL (postgres://user:password@host:5432/database): ${ENCODE_HINT}`;
  // pg also takes a socket folder as ?host=/path with no host in the authority.
  if (!url.hostname && !url.searchParams.get('host')) return `${name} names no host (postgres://user:password@host:5432/database)`;
  if ((url.hash !== '' || /[@#]/.test(url.hostname)) && !url.searchParams.get('host')) {
    return `${name} is not a valid URL (postgres://user:password@host:5432/database): ${ENCODE_HINT}`;
  }
  return undefined;
}

const AZURE_URL_KEYS = ['BlobEndpoint', 'QueueEndpoint', 'TableEndpoint', 'FileEndpoint', 'DevelopmentStorageProxyUri'];
const AZURE_KEYS = new Set(['DefaultEndpointsProtocol', 'AccountName', 'AccountKey', 'EndpointSuffix', 'SharedAccessSignature', 'UseDevelopmentStorage', ...AZURE_URL_KEYS]);

/** The problem with an Azure Blob connection string (`Key=Value;…`), if any. */
function azureProblem(value: string): string | undefined {
  const name = 'OBJECT_STORAGE_CONNECTION_STRING (an Azure connection string)';
  const fields = new Map<string, string>();
  for (const part of value.split(';')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) return `${name} must be Key=Value pairs separated by ";": a part has no "="`;
    const key = part.slice(0, eq).trim();
    if (!AZURE_KEYS.has(key)) return `${name} has an unknown key "${key.slice(0, 40)}" (known: ${[...AZURE_KEYS].join(', ')})`;
    fields.set(key, part.slice(eq + 1).trim());
  }
  if (fields.get('UseDevelopmentStorage') !== undefined) {
    return fields.get('UseDevelopmentStorage') === 'true' ? undefined : `${name}: UseDevelopmentStorage must be true`;
  }
  for (const key of AZURE_URL_KEYS) {
    const given = fields.get(key);
    if (given === undefined) continue;
    const url = urlOf(given);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return `${name}: ${key} is not an http(s) URL`;
  }
  const protocol = fields.get('DefaultEndpointsProtocol');
  if (protocol !== undefined && protocol !== 'http' && protocol !== 'https') return `${name}: DefaultEndpointsProtocol must be http or https`;
  const sas = fields.get('SharedAccessSignature');
  if (sas !== undefined) {
    if (!fields.get('BlobEndpoint') && !fields.get('AccountName')) return `${name}: with SharedAccessSignature, BlobEndpoint or AccountName is required`;
    return sas === '' ? `${name}: SharedAccessSignature is empty` : undefined;
  }
  if (!fields.get('AccountName')) return `${name}: AccountName is required`;
  const key = fields.get('AccountKey');
  if (!key) return `${name}: AccountKey (or SharedAccessSignature) is required`;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key)) return `${name}: AccountKey is not base64 (copy it whole from the storage account's access keys)`;
  if (!fields.get('BlobEndpoint') && protocol === undefined) return `${name}: DefaultEndpointsProtocol or BlobEndpoint is required`;
  return undefined;
}

const S3_PARAMS = new Set(['region', 'endpoint', 'forcePathStyle', 'accessKeyId', 'secretAccessKey']);

/** The problem with an S3 connection string (`s3://<bucket>?region=…&endpoint=…&forcePathStyle=true`), if any. */
function s3Problem(value: string): string | undefined {
  const name = 'OBJECT_STORAGE_CONNECTION_STRING (s3://<bucket>?region=…&endpoint=…&forcePathStyle=true)';
  const url = urlOf(value);
  if (!url || !url.hostname || url.username || url.password) return `${name} is not a valid s3:// URL naming a bucket`;
  if (url.pathname !== '' && url.pathname !== '/') return `${name}: the bucket is the host; a path after it is not allowed`;
  for (const key of url.searchParams.keys()) {
    if (!S3_PARAMS.has(key)) return `${name} has an unknown parameter "${key.slice(0, 40)}" (known: ${[...S3_PARAMS].join(', ')})`;
  }
  const endpoint = url.searchParams.get('endpoint');
  if (endpoint !== null) {
    const e = urlOf(endpoint);
    if (!e || (e.protocol !== 'http:' && e.protocol !== 'https:') || !e.hostname) return `${name}: endpoint is not an http(s) URL`;
  }
  const pathStyle = url.searchParams.get('forcePathStyle');
  if (pathStyle !== null && pathStyle !== 'true' && pathStyle !== 'false') return `${name}: forcePathStyle must be true or false`;
  if ((url.searchParams.get('accessKeyId') === null) !== (url.searchParams.get('secretAccessKey') === null)) return `${name}: accessKeyId and secretAccessKey go together`;
  return undefined;
}

/** The problem with OBJECT_STORAGE_CONNECTION_STRING, if any: an Azure connection string or an s3:// URL. */
export function storageConnectionProblem(value: string): string | undefined {
  const v = value.trim();
  if (v.startsWith('s3://')) return s3Problem(v);
  if (v.startsWith('DefaultEndpointsProtocol=') || v.startsWith('UseDevelopmentStorage=') || v.includes('BlobEndpoint=') || v.includes('AccountName=')) return azureProblem(v);
  return 'OBJECT_STORAGE_CONNECTION_STRING is neither an Azure Blob connection string ("DefaultEndpointsProtocol=…;AccountName=…;AccountKey=…" or one with "BlobEndpoint=…") nor an S3 URL ("s3://<bucket>?region=…&endpoint=…")';
}
