// A Server-Sent Events parser following the WHATWG HTML rules ("Interpreting an event stream"): UTF-8 bytes in any
// chunking (a chunk may end inside a character or between CR and LF), lines ended by CRLF, LF or CR, `:` comments,
// `field: value` with one leading space dropped, multi-line `data`, `id` kept across events (ignored when it holds
// NUL), `retry` when all digits, and an event dispatched at a blank line only when it has data. An event left
// unterminated when the stream ends is dropped, as the standard says.

export interface SseEvent {
  /** The last event id seen on the stream (empty until an `id:` line), as `Last-Event-ID` would send it. */
  id: string;
  /** `event:` of the event, `message` when none. */
  event: string;
  /** The `data:` lines joined with LF. */
  data: string;
}

export interface SseParserHandlers {
  onEvent(event: SseEvent): void;
  /** A `retry:` field: the reconnection delay the server asks for, in milliseconds. */
  onRetry?(ms: number): void;
  /** A comment line (`: ping`), without its colon. */
  onComment?(text: string): void;
}

export interface SseParser {
  /** Feeds the next bytes (or already decoded text) of the stream. */
  feed(chunk: Uint8Array | string): void;
  /** The id of the last event dispatched: what to send as `Last-Event-ID` on reconnecting. */
  readonly lastEventId: string;
}

/** `lastEventId`: the id the stream starts from (the one a reconnection sent), kept until an `id:` line changes it. */
export function createSseParser(handlers: SseParserHandlers, lastEventId = ''): SseParser {
  // Invalid bytes become U+FFFD, as the standard requires; the byte order mark is dropped below (once).
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let started = false; // a byte order mark is dropped only at the very start
  let afterCR = false; // the previous chunk ended with CR: an LF starting this one belongs to that line end
  let line = '';
  let data = '';
  let hasData = false;
  let eventType = '';
  let idBuffer = lastEventId;
  let dispatchedId = lastEventId;

  function dispatch(): void {
    dispatchedId = idBuffer; // even for an event without data, as the standard says
    if (!hasData) {
      eventType = '';
      return;
    }
    const event = { id: idBuffer, event: eventType || 'message', data };
    data = '';
    hasData = false;
    eventType = '';
    handlers.onEvent(event);
  }

  function processLine(text: string): void {
    if (text === '') return dispatch();
    if (text.startsWith(':')) return handlers.onComment?.(text.slice(1));
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        eventType = value;
        break;
      case 'data':
        data = hasData ? `${data}\n${value}` : value;
        hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) idBuffer = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) handlers.onRetry?.(Number(value));
        break;
      default: // unknown fields are ignored
    }
  }

  function feedText(text: string): void {
    if (!started && text.length > 0) {
      started = true;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 /* LF */) {
        if (afterCR) {
          // the LF of a CRLF whose CR (perhaps at the end of the previous chunk) already ended the line
          afterCR = false;
          start = i + 1;
          continue;
        }
        processLine(line + text.slice(start, i));
        line = '';
        start = i + 1;
      } else if (c === 13 /* CR */) {
        processLine(line + text.slice(start, i));
        line = '';
        start = i + 1;
        afterCR = true;
      } else if (afterCR) {
        afterCR = false;
      }
    }
    line += text.slice(start);
  }

  return {
    feed(chunk) {
      feedText(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    },
    get lastEventId() {
      return dispatchedId;
    },
  };
}
