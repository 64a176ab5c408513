// Messages written for people. A schema that fails with one of these answers it as-is (the API's fixed
// messages, docs/errors.md); any other validation failure is answered as "Invalid <field>: <reason>".
const PUBLIC = new Set<string>();

/** Register and return a message for a zod `error` option. */
export function says(message: string): { error: string } {
  PUBLIC.add(message);
  return { error: message };
}

export const isPublicMessage = (message: string): boolean => PUBLIC.has(message);
