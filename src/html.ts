// Minimal server-rendered pages (sign-in form, dev identity provider). The React client replaces the
// product pages; these stay small and dependency-free.
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `:root{color-scheme:light dark;font-family:system-ui,sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:Canvas;color:CanvasText}
.card{max-width:26rem;width:calc(100% - 2rem);padding:2rem;border:1px solid color-mix(in srgb,CanvasText 15%,transparent);border-radius:12px}
h1{font-size:1.4rem;margin-top:0}.muted{opacity:.75}.error{color:#c62828;font-weight:600}
form{display:grid;gap:.9rem}label{display:grid;gap:.3rem}
input{font:inherit;padding:.55rem .6rem;border-radius:8px;border:1px solid color-mix(in srgb,CanvasText 30%,transparent)}
button{font:inherit;padding:.6rem 1rem;border-radius:8px;border:0;background:#4f46e5;color:#fff;cursor:pointer}
button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid #818cf8;outline-offset:2px}`;

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>`;
}
