// The least environment with which the service starts in production: every required value set (placeholders,
// nothing is contacted). Config tests add or remove keys from it.
export const PRODUCTION_ENV: Readonly<Record<string, string>> = Object.freeze({
  NODE_ENV: 'production',
  OAUTH_CLIENT_ID: 'id',
  OAUTH_CLIENT_SECRET: 'secret',
  AUTH_URL: 'https://canvas.example.com/',
  AUTH_SECRET: 'x'.repeat(40),
  OBJECT_STORAGE_CONNECTION_STRING: 'DefaultEndpointsProtocol=https;AccountName=a;AccountKey=b;EndpointSuffix=core.windows.net',
  DATABASE_CONNECTION_STRING: 'postgres://u:p@db.internal:5432/canvas',
  IMAGE_MODEL_API_KEY: 'key',
});
