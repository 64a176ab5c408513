const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string can be a row id; anything else cannot exist and is answered as not found. */
export const isUuid = (value: string): boolean => UUID.test(value);
