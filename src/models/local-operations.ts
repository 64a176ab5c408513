// Turns a free-text prompt into the operations the offline engine knows, in the order they appear.

export type Rgb = [number, number, number];
export type Layout = 'side-by-side' | 'stack' | 'grid';

export type Operation =
  | { kind: 'grayscale' | 'sepia' | 'invert' | 'sharpen' | 'flip' | 'mirror' | 'square-crop' }
  | { kind: 'brighten' | 'darken' }
  | { kind: 'contrast'; more: boolean }
  | { kind: 'blur'; sigma: number }
  | { kind: 'rotate'; degrees: number }
  | { kind: 'resize'; maxSide: number }
  | { kind: 'resize-exact'; width: number; height: number }
  | { kind: 'scale'; percent: number }
  | { kind: 'tint'; colour: Rgb; name: string }
  | { kind: 'layout'; layout: Layout };

export const UNDERSTOOD_WORDS =
  'grayscale (black and white, b&w), sepia, invert (negative), blur [N], sharpen, rotate [N], ' +
  'flip (vertical), mirror (horizontal), resize to N or NxM, scale by N%, square crop, brighten, darken, ' +
  'more/less contrast, tint <colour or #rrggbb>; with several images: side by side, stack (vertically), grid';

/**
 * One short prompt for each operation the engine knows, as GET /api/models offers them (`promptHints` of the
 * offline engine) and the web client shows them as chips under a prompt: each is recognised as exactly that one
 * operation (the unit test parses every one).
 */
export const PROMPT_HINTS: readonly string[] = Object.freeze([
  'grayscale', 'sepia', 'invert', 'blur 4', 'sharpen', 'rotate 90', 'flip', 'mirror', 'resize to 512', 'scale by 50%',
  'square crop', 'brighten', 'darken', 'more contrast', 'less contrast', 'tint blue', 'side by side', 'stack', 'grid',
]);

const COLOURS: Record<string, Rgb> = {
  red: [255, 0, 0], green: [0, 128, 0], blue: [0, 0, 255], yellow: [255, 255, 0], orange: [255, 165, 0],
  purple: [128, 0, 128], pink: [255, 192, 203], cyan: [0, 255, 255], magenta: [255, 0, 255],
  white: [255, 255, 255], black: [0, 0, 0], gray: [128, 128, 128], grey: [128, 128, 128],
  brown: [165, 42, 42], gold: [255, 215, 0], teal: [0, 128, 128], navy: [0, 0, 128], lime: [0, 255, 0],
  violet: [238, 130, 238], indigo: [75, 0, 130], maroon: [128, 0, 0], olive: [128, 128, 0],
  turquoise: [64, 224, 208], coral: [255, 127, 80], salmon: [250, 128, 114], silver: [192, 192, 192],
};

function parseColour(word: string): Rgb | undefined {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/.exec(word);
  if (!hex) return COLOURS[word];
  const digits = hex[1].length === 3 ? [...hex[1]].map((d) => d + d).join('') : hex[1];
  return [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16)) as Rgb;
}

type Rule = [RegExp, (m: RegExpExecArray) => Operation | undefined];

const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
const COLOUR_WORD = '(#[0-9a-f]{6}\\b|#[0-9a-f]{3}\\b|[a-z]+)';
const tint = (word: string): Operation | undefined => {
  const colour = parseColour(word);
  return colour && { kind: 'tint', colour, name: word };
};

const RULES: Rule[] = [
  [/\b(?:gr[ae]y[\s-]?scale|black[\s-]+and[\s-]+white|b\s*[&/]\s*w|monochrome)\b/g, () => ({ kind: 'grayscale' })],
  [/\bsepia\b/g, () => ({ kind: 'sepia' })],
  [/\b(?:invert(?:ed)?|negative)\b/g, () => ({ kind: 'invert' })],
  [/\bblur(?:red|ry)?\b(?:\s+(?:by\s+|of\s+|radius\s+|sigma\s+)?(\d+(?:\.\d+)?)(?![\d.]*\s*%))?/g,
    (m) => ({ kind: 'blur', sigma: num(m[1]) ?? 4 })],
  [/\b(?:sharpen(?:ed)?|sharper)\b/g, () => ({ kind: 'sharpen' })],
  [/\brotat(?:e|ed|ion)\b(?:\s+(?:it\s+|the\s+image\s+)?(?:by\s+)?(-?\d+(?:\.\d+)?)\s*(?:°|deg(?:rees?)?\b)?)?(?:\s*(counter-?clockwise|anti-?clockwise|left|clockwise|right)\b)?/g,
    (m) => {
      const degrees = num(m[1]) ?? 90;
      return { kind: 'rotate', degrees: /counter|anti|left/.test(m[2] ?? '') ? -degrees : degrees };
    }],
  [/\bflip(?:ped)?\b(?:\s+(?:it\s+|the\s+image\s+)?(horizontal(?:ly)?|vertical(?:ly)?)\b)?|\bupside[\s-]+down\b/g,
    (m) => ({ kind: m[1]?.startsWith('horizontal') ? 'mirror' : 'flip' })],
  [/\bmirror(?:ed)?\b(?:\s+(?:it\s+)?horizontal(?:ly)?\b)?/g, () => ({ kind: 'mirror' })],
  [/\b(?:resize|scale|shrink|enlarge)d?\b(?:\s+(?:it|the\s+image|images|them))?\s+(to|by)?\s*(\d+(?:\.\d+)?)\s*(%|percent\b|(?:[x×*]|by)\s*(\d+))?/g,
    (m) => {
      const n = Number(m[2]);
      if (m[3] === '%' || m[3] === 'percent') return { kind: 'scale', percent: n };
      if (m[4]) return { kind: 'resize-exact', width: n, height: Number(m[4]) };
      if (m[1] === 'by' && n <= 10) return { kind: 'scale', percent: n * 100 }; // "scale by 2" is a factor
      return { kind: 'resize', maxSide: n };
    }],
  [/\b(?:square[\s-]+crop(?:ped)?|crop(?:ped)?(?:\s+(?:it|the\s+image))?\s+(?:(?:in)?to\s+)?(?:a\s+)?square)\b/g,
    () => ({ kind: 'square-crop' })],
  [/\b(?:brighten(?:ed)?|brighter|lighten(?:ed)?|lighter|(?:increase|more|raise|boost)\s+(?:the\s+)?brightness)\b/g,
    () => ({ kind: 'brighten' })],
  [/\b(?:darken(?:ed)?|darker|(?:decrease|reduce|less|lower)\s+(?:the\s+)?brightness)\b/g, () => ({ kind: 'darken' })],
  [/\b(?:(more|increased?|higher|high|boost|raise|less|decreased?|reduced?|lower|low)\s+(?:the\s+)?)?contrast\b/g,
    (m) => ({ kind: 'contrast', more: !/^(less|decrease|reduce|lower|low)/.test(m[1] ?? '') })],
  [new RegExp(`\\btint(?:ed)?\\b(?:\\s+(?:it|the\\s+image|them))?(?:\\s+(?:with|in|to))?(?:\\s+a)?\\s+${COLOUR_WORD}`, 'g'),
    (m) => tint(m[1])],
  [new RegExp(`(?<![\\w#])${COLOUR_WORD}\\s+tint\\b`, 'g'), (m) => tint(m[1])],
  [/\bside[\s-]+by[\s-]+side\b/g, () => ({ kind: 'layout', layout: 'side-by-side' })],
  [/\bstack(?:ed)?\b(?:\s+(?:them\s+)?vertically\b)?|\bvertically\b|\bon\s+top\s+of\s+each\s+other\b/g,
    () => ({ kind: 'layout', layout: 'stack' })],
  [/\b(?:grid|collage|mosaic)\b/g, () => ({ kind: 'layout', layout: 'grid' })],
];

/**
 * Words that carry no request of their own ("make it …, please"): a stretch of the prompt outside every operation
 * is reported as ignored without them at its ends, and not at all when it holds nothing else.
 */
const FILLER = new Set(
  ('a an the and or then also plus now next first second finally after afterwards before it its them they this that ' +
    'these those image images picture pictures photo photos please make makes turn give me us i want would could can ' +
    'you should be to into in on of with by for as at from so just slightly bit little very some both each all put place ' +
    'arrange combine apply add set do get have let keep show my our your one two three four five several').split(' '),
);

/** A prompt as the engine reads it: its operations in prompt order, and the stretches of it that are none. */
export interface ReadPrompt {
  ops: Operation[];
  /** What of the prompt is no operation (filler words at its ends left out), in prompt order. */
  ignored: string[];
}

/** The part of `text` from `start` to `end` that is not filler, or undefined when it is all filler. */
function leftover(text: string, start: number, end: number): string | undefined {
  const words = text.slice(start, end).split(/[^\p{L}\p{N}#&%'’-]+/u).filter((w) => w !== '');
  const isFiller = (w: string) => FILLER.has(w.toLowerCase());
  while (words.length > 0 && isFiller(words[0])) words.shift();
  while (words.length > 0 && isFiller(words[words.length - 1])) words.pop();
  return words.length > 0 ? words.join(' ') : undefined;
}

/** Recognised operations in prompt order; overlapping matches keep the earlier (then longer) one. */
export function parsePrompt(prompt: string): Operation[] {
  return readPrompt(prompt).ops;
}

/** The operations of `prompt` (as parsePrompt) and what of it the engine did not understand. */
export function readPrompt(prompt: string): ReadPrompt {
  const text = prompt.toLowerCase();
  // Quoted as written where lowering the case kept every position (it does for nearly every text).
  const shown = text.length === prompt.length ? prompt : text;
  const found: { start: number; end: number; op: Operation }[] = [];
  for (const [pattern, make] of RULES) {
    for (const m of text.matchAll(pattern)) {
      const op = make(m);
      if (op) found.push({ start: m.index, end: m.index + m[0].length, op });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Operation[] = [];
  const ignored: string[] = [];
  let end = 0;
  for (const f of found) {
    if (f.start < end) continue;
    const before = leftover(shown, end, f.start);
    if (before) ignored.push(before);
    kept.push(f.op);
    end = f.end;
  }
  const after = leftover(shown, end, shown.length);
  if (after) ignored.push(after);
  return { ops: kept, ignored };
}

export function describe(op: Operation): string {
  switch (op.kind) {
    case 'blur': return `blur ${op.sigma}`;
    case 'rotate': return `rotate ${op.degrees}°`;
    case 'flip': return 'flip (vertical)';
    case 'mirror': return 'mirror (horizontal)';
    case 'resize': return `resize to max ${op.maxSide} px`;
    case 'resize-exact': return `resize to ${op.width}×${op.height}`;
    case 'scale': return `scale by ${op.percent}%`;
    case 'square-crop': return 'square crop';
    case 'contrast': return op.more ? 'more contrast' : 'less contrast';
    case 'tint': return `tint ${op.name}`;
    case 'layout': return op.layout.replace(/-/g, ' ');
    default: return op.kind;
  }
}
