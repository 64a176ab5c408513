// Generated from docs/openapi.json by `npm run web:types` (openapi-typescript). Do not edit.

export interface paths {
    "/dev-idp/{*}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    "*": string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    "*": string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    "*": string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    "*": string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        options: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    "*": string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        head: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    "*": string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    "*": string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        trace: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    "*": string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
    };
    "/dev-idp/interaction/{uid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    uid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/dev-idp/interaction/{uid}/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    uid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/client-config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Public configuration of the web client (no session needed) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ClientConfig"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/node-kinds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every node kind: its ports and the JSON Schema of its data (no session needed) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["NodeKinds"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is up */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "ok" | "degraded" | "unavailable";
                            checks?: {
                                [key: string]: "ok" | "degraded" | "unavailable" | "full";
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Backing services reachable (503 when not; 200 with status degraded when only the link between instances is down) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "ok" | "degraded" | "unavailable";
                            checks?: {
                                [key: string]: "ok" | "degraded" | "unavailable" | "full";
                            };
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "ok" | "degraded" | "unavailable";
                            checks?: {
                                [key: string]: "ok" | "degraded" | "unavailable" | "full";
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/files/{*}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    "*": string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    "*": string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        patch?: never;
        trace?: never;
    };
    "/api/webhook/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a payment provider webhook (Standard Webhooks signature; idempotent by webhook id)
         * @description The body is the provider's event JSON, verified over its raw bytes with the `webhook-id`, `webhook-timestamp` and `webhook-signature` headers (timestamps older or newer than 5 minutes are refused). A second delivery of one webhook id answers `duplicate: true` and changes nothing.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    "webhook-id"?: string;
                    "webhook-timestamp"?: string;
                    "webhook-signature"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            received: true;
                            /** @enum {boolean} */
                            duplicate?: true;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/video/asset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A video asset's status, by asset id or by the direct upload that makes it (no session; rate-limited per address) */
        get: {
            parameters: {
                query?: {
                    /** @description the asset (takes precedence over uploadId) */
                    assetId?: string;
                    /** @description a direct upload: its asset, or the upload's own status while it has none */
                    uploadId?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["VideoAssetStatus"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/upload/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The newest templates of everyone with their canvases, newest first, as many as fit in TEMPLATES_LIST_MAX_BYTES (no session needed; rate-limited per signed-in user, else per address; revalidate with If-None-Match) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Template"][];
                    };
                };
                /** @description The ETag sent in If-None-Match is current */
                304: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": null;
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Publish a canvas as a template, for everyone to see (the author is the signed-in user; at most TEMPLATES_PER_USER_MAX each; rate-limited per user) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        templateName: string;
                        canvas: {
                            /** @default [] */
                            nodes?: ({
                                id: string;
                                /** @enum {string} */
                                type: "upload";
                                position: {
                                    x: number;
                                    y: number;
                                };
                                data: {
                                    /** @enum {string} */
                                    type: "upload" | "generation";
                                    /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                                    image?: string;
                                    prompt?: string;
                                    isGenerating?: boolean;
                                    /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                                    model?: string;
                                };
                            } | {
                                id: string;
                                /** @enum {string} */
                                type: "generation";
                                position: {
                                    x: number;
                                    y: number;
                                };
                                data: {
                                    /** @enum {string} */
                                    type: "upload" | "generation";
                                    /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                                    image?: string;
                                    prompt?: string;
                                    isGenerating?: boolean;
                                    /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                                    model?: string;
                                    /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                                    seed?: number;
                                    /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                                    count?: number;
                                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                    resultKey?: string;
                                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                    results?: string[];
                                };
                            } | {
                                id: string;
                                /** @enum {string} */
                                type: "text";
                                position: {
                                    x: number;
                                    y: number;
                                };
                                data: {
                                    /** @enum {string} */
                                    type: "text";
                                    /** @description the text (may be empty) */
                                    text: string;
                                };
                            } | {
                                id: string;
                                /** @enum {string} */
                                type: "list";
                                position: {
                                    x: number;
                                    y: number;
                                };
                                data: {
                                    /** @enum {string} */
                                    type: "list";
                                    /** @description its texts, at most 500, each at most as long as a prompt (may be empty) */
                                    items: string[];
                                };
                            } | {
                                id: string;
                                /** @enum {string} */
                                type: "crop";
                                position: {
                                    x: number;
                                    y: number;
                                };
                                data: {
                                    /** @enum {string} */
                                    type: "crop";
                                    /** @description the box’s left edge (pixels of the input, 0–65535) */
                                    x: number;
                                    /** @description the box’s top edge (pixels of the input, 0–65535) */
                                    y: number;
                                    /** @description the box’s width (pixels of the input, 1–65535) */
                                    width: number;
                                    /** @description the box’s height (pixels of the input, 1–65535) */
                                    height: number;
                                    /** @description The result of its last run (written by the service) */
                                    image?: string;
                                    /** @description Whether its job is queued or running (written by the service) */
                                    isGenerating?: boolean;
                                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                    resultKey?: string;
                                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                    results?: string[];
                                };
                            } | {
                                id: string;
                                /** @enum {string} */
                                type: "resize";
                                position: {
                                    x: number;
                                    y: number;
                                };
                                data: {
                                    /** @enum {string} */
                                    type: "resize";
                                    /** @description the width in pixels (1–65535); absent: from the input's aspect ratio */
                                    width?: number;
                                    /** @description the height in pixels (1–65535); absent: from the input's aspect ratio */
                                    height?: number;
                                    /**
                                     * @description contain: all of the image inside the box; cover: the box filled, the rest cut; fill: stretched
                                     * @enum {string}
                                     */
                                    fit: "contain" | "cover" | "fill";
                                    /** @description The result of its last run (written by the service) */
                                    image?: string;
                                    /** @description Whether its job is queued or running (written by the service) */
                                    isGenerating?: boolean;
                                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                    resultKey?: string;
                                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                    results?: string[];
                                };
                            } | {
                                id: string;
                                /** @enum {string} */
                                type: "adjust";
                                position: {
                                    x: number;
                                    y: number;
                                };
                                data: {
                                    /** @enum {string} */
                                    type: "adjust";
                                    /** @description brightness as a multiplier, 0–4 (1 = unchanged) */
                                    brightness?: number;
                                    /** @description contrast as a multiplier, 0–4 (1 = unchanged) */
                                    contrast?: number;
                                    /** @description saturation as a multiplier, 0–4 (1 = unchanged) */
                                    saturation?: number;
                                    /** @description hue turned by this many whole degrees, −360–360 */
                                    hue?: number;
                                    /** @description in shades of grey */
                                    grayscale?: boolean;
                                    /** @description in sepia tones */
                                    sepia?: boolean;
                                    /** @description colours inverted */
                                    invert?: boolean;
                                    /** @description Gaussian blur of this sigma in pixels, 0–100 (0 = none) */
                                    blur?: number;
                                    /** @description The result of its last run (written by the service) */
                                    image?: string;
                                    /** @description Whether its job is queued or running (written by the service) */
                                    isGenerating?: boolean;
                                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                    resultKey?: string;
                                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                    results?: string[];
                                };
                            } | {
                                id: string;
                                /** @enum {string} */
                                type: "mask";
                                position: {
                                    x: number;
                                    y: number;
                                };
                                data: {
                                    /** @enum {string} */
                                    type: "mask";
                                    /** @description The mask: a PNG image URL, the size of its input image, white where an edit changes the image and black where it keeps it (absent: nothing painted yet) */
                                    mask?: string;
                                };
                            } | {
                                id: string;
                                /** @enum {string} */
                                type: "edit";
                                position: {
                                    x: number;
                                    y: number;
                                };
                                data: {
                                    /** @enum {string} */
                                    type: "edit";
                                    /** @description What to draw in the masked (or added) area; texts wired to its prompt input are joined after it */
                                    prompt?: string;
                                    /** @description The model it edits with: one that does inpaint (GET /api/models); absent: inpaint-telea */
                                    model?: string;
                                    /**
                                     * @description inpaint: redraw the white of its mask; outpaint: extend the image by `outpaint` pixels on each side and draw the new area
                                     * @enum {string}
                                     */
                                    mode: "inpaint" | "outpaint";
                                    /** @description outpaint mode: the pixels added on each side, { top, right, bottom, left }, each 0–4096 */
                                    outpaint?: {
                                        top: number;
                                        right: number;
                                        bottom: number;
                                        left: number;
                                    };
                                    /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                                    seed?: number;
                                    /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                                    count?: number;
                                    /** @description The result of its last run (written by the service) */
                                    image?: string;
                                    /** @description Whether its job is queued or running (written by the service) */
                                    isGenerating?: boolean;
                                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                    resultKey?: string;
                                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                    results?: string[];
                                };
                            } | {
                                id: string;
                                /** @enum {string} */
                                type: "compose";
                                position: {
                                    x: number;
                                    y: number;
                                };
                                data: {
                                    /** @enum {string} */
                                    type: "compose";
                                    /** @description Layer i's placement for the i-th connected image (bottom first), at most 32; a missing entry: at 0,0, full size, opaque, normal */
                                    layers?: {
                                        /** @description left edge on the composition, pixels */
                                        x: number;
                                        /** @description top edge on the composition, pixels */
                                        y: number;
                                        /** @description its image's size times this, 0.01–16 */
                                        scale: number;
                                        opacity: number;
                                        /** @enum {string} */
                                        blend: "normal" | "multiply" | "screen" | "overlay" | "darken" | "lighten" | "color-dodge" | "color-burn" | "hard-light" | "soft-light" | "difference" | "exclusion";
                                        /** @description index of the mask (its masks input, in canvas order) that is its alpha */
                                        mask?: number;
                                        name?: string;
                                        hidden?: boolean;
                                    }[];
                                    /** @description the composition's width in pixels (1–65535); absent: the first image's */
                                    width?: number;
                                    /** @description the composition's height in pixels (1–65535); absent: the first image's */
                                    height?: number;
                                    /** @description A colour #rrggbb under the layers; absent: transparent */
                                    background?: string;
                                    /** @description The result of its last run (written by the service) */
                                    image?: string;
                                    /** @description Whether its job is queued or running (written by the service) */
                                    isGenerating?: boolean;
                                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                    resultKey?: string;
                                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                    results?: string[];
                                };
                            } | {
                                id: string;
                                /** @enum {string} */
                                type: "upscale";
                                position: {
                                    x: number;
                                    y: number;
                                };
                                data: {
                                    /** @enum {string} */
                                    type: "upscale";
                                    /** @description The model it upscales with: one that does upscale (GET /api/models); absent: esrgan-slim-2x */
                                    model?: string;
                                    /** @description The result of its last run (written by the service) */
                                    image?: string;
                                    /** @description Whether its job is queued or running (written by the service) */
                                    isGenerating?: boolean;
                                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                    resultKey?: string;
                                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                    results?: string[];
                                };
                            } | {
                                id: string;
                                /** @enum {string} */
                                type: "remove-background";
                                position: {
                                    x: number;
                                    y: number;
                                };
                                data: {
                                    /** @enum {string} */
                                    type: "remove-background";
                                    /** @description The model it cuts the subject out with: one that does remove-background (GET /api/models) */
                                    model?: string;
                                    /** @description The result of its last run (written by the service) */
                                    image?: string;
                                    /** @description Whether its job is queued or running (written by the service) */
                                    isGenerating?: boolean;
                                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                    resultKey?: string;
                                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                    results?: string[];
                                };
                            })[];
                            /** @default [] */
                            edges?: {
                                id: string;
                                source: string;
                                target: string;
                                sourceHandle?: string | null;
                                targetHandle?: string | null;
                            }[];
                            /**
                             * @description finite numbers, zoom above 0
                             * @default {
                             *       "x": 0,
                             *       "y": 0,
                             *       "zoom": 1
                             *     }
                             */
                            viewport?: {
                                x: number;
                                y: number;
                                zoom: number;
                            };
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            /**
                             * Format: uuid
                             * @description the new template (on publishing)
                             */
                            id?: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The newest templates of everyone without their canvases, newest first (no session needed; rate-limited per signed-in user, else per address; revalidate with If-None-Match) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["TemplateSummary"][];
                    };
                };
                /** @description The ETag sent in If-None-Match is current */
                304: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": null;
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/templates/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One template's canvas (no session needed; rate-limited per signed-in user, else per address; revalidate with If-None-Match) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["TemplateCanvas"];
                    };
                };
                /** @description The ETag sent in If-None-Match is current */
                304: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": null;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/shared/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A project shown by its read-only link: its name and canvas (no session needed; rate-limited per signed-in user, else per address) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description the token of POST /api/user/project/{projectId}/share-link */
                    token: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SharedCanvas"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in user */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["User"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who is signed in, from the session alone (no database read; cheaper than /api/auth/session, which re-issues the cookie) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            email: string;
                            name: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Sign out of all devices: every session of the signed-in user ends, on every instance, this one included */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/project": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the user's projects in creation order (oldest first) */
        get: {
            parameters: {
                query: {
                    userId: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Project"][];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Create a project */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        userId: string;
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Project"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/project/{projectId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a project and its canvas */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": null;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Rename a project */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Project"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/api/user/project/canvas": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A project's canvas, or null when it has none */
        get: {
            parameters: {
                query: {
                    projectId: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Canvas"] | null;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Save a canvas (upsert; with `version`, refused with 409 when stale) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        id?: string;
                        projectId: string;
                        /** @default [] */
                        nodes?: ({
                            id: string;
                            /** @enum {string} */
                            type: "upload";
                            position: {
                                x: number;
                                y: number;
                            };
                            data: {
                                /** @enum {string} */
                                type: "upload" | "generation";
                                /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                                image?: string;
                                prompt?: string;
                                isGenerating?: boolean;
                                /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                                model?: string;
                            };
                        } | {
                            id: string;
                            /** @enum {string} */
                            type: "generation";
                            position: {
                                x: number;
                                y: number;
                            };
                            data: {
                                /** @enum {string} */
                                type: "upload" | "generation";
                                /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                                image?: string;
                                prompt?: string;
                                isGenerating?: boolean;
                                /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                                model?: string;
                                /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                                seed?: number;
                                /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                                count?: number;
                                /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                resultKey?: string;
                                /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                results?: string[];
                            };
                        } | {
                            id: string;
                            /** @enum {string} */
                            type: "text";
                            position: {
                                x: number;
                                y: number;
                            };
                            data: {
                                /** @enum {string} */
                                type: "text";
                                /** @description the text (may be empty) */
                                text: string;
                            };
                        } | {
                            id: string;
                            /** @enum {string} */
                            type: "list";
                            position: {
                                x: number;
                                y: number;
                            };
                            data: {
                                /** @enum {string} */
                                type: "list";
                                /** @description its texts, at most 500, each at most as long as a prompt (may be empty) */
                                items: string[];
                            };
                        } | {
                            id: string;
                            /** @enum {string} */
                            type: "crop";
                            position: {
                                x: number;
                                y: number;
                            };
                            data: {
                                /** @enum {string} */
                                type: "crop";
                                /** @description the box’s left edge (pixels of the input, 0–65535) */
                                x: number;
                                /** @description the box’s top edge (pixels of the input, 0–65535) */
                                y: number;
                                /** @description the box’s width (pixels of the input, 1–65535) */
                                width: number;
                                /** @description the box’s height (pixels of the input, 1–65535) */
                                height: number;
                                /** @description The result of its last run (written by the service) */
                                image?: string;
                                /** @description Whether its job is queued or running (written by the service) */
                                isGenerating?: boolean;
                                /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                resultKey?: string;
                                /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                results?: string[];
                            };
                        } | {
                            id: string;
                            /** @enum {string} */
                            type: "resize";
                            position: {
                                x: number;
                                y: number;
                            };
                            data: {
                                /** @enum {string} */
                                type: "resize";
                                /** @description the width in pixels (1–65535); absent: from the input's aspect ratio */
                                width?: number;
                                /** @description the height in pixels (1–65535); absent: from the input's aspect ratio */
                                height?: number;
                                /**
                                 * @description contain: all of the image inside the box; cover: the box filled, the rest cut; fill: stretched
                                 * @enum {string}
                                 */
                                fit: "contain" | "cover" | "fill";
                                /** @description The result of its last run (written by the service) */
                                image?: string;
                                /** @description Whether its job is queued or running (written by the service) */
                                isGenerating?: boolean;
                                /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                resultKey?: string;
                                /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                results?: string[];
                            };
                        } | {
                            id: string;
                            /** @enum {string} */
                            type: "adjust";
                            position: {
                                x: number;
                                y: number;
                            };
                            data: {
                                /** @enum {string} */
                                type: "adjust";
                                /** @description brightness as a multiplier, 0–4 (1 = unchanged) */
                                brightness?: number;
                                /** @description contrast as a multiplier, 0–4 (1 = unchanged) */
                                contrast?: number;
                                /** @description saturation as a multiplier, 0–4 (1 = unchanged) */
                                saturation?: number;
                                /** @description hue turned by this many whole degrees, −360–360 */
                                hue?: number;
                                /** @description in shades of grey */
                                grayscale?: boolean;
                                /** @description in sepia tones */
                                sepia?: boolean;
                                /** @description colours inverted */
                                invert?: boolean;
                                /** @description Gaussian blur of this sigma in pixels, 0–100 (0 = none) */
                                blur?: number;
                                /** @description The result of its last run (written by the service) */
                                image?: string;
                                /** @description Whether its job is queued or running (written by the service) */
                                isGenerating?: boolean;
                                /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                resultKey?: string;
                                /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                results?: string[];
                            };
                        } | {
                            id: string;
                            /** @enum {string} */
                            type: "mask";
                            position: {
                                x: number;
                                y: number;
                            };
                            data: {
                                /** @enum {string} */
                                type: "mask";
                                /** @description The mask: a PNG image URL, the size of its input image, white where an edit changes the image and black where it keeps it (absent: nothing painted yet) */
                                mask?: string;
                            };
                        } | {
                            id: string;
                            /** @enum {string} */
                            type: "edit";
                            position: {
                                x: number;
                                y: number;
                            };
                            data: {
                                /** @enum {string} */
                                type: "edit";
                                /** @description What to draw in the masked (or added) area; texts wired to its prompt input are joined after it */
                                prompt?: string;
                                /** @description The model it edits with: one that does inpaint (GET /api/models); absent: inpaint-telea */
                                model?: string;
                                /**
                                 * @description inpaint: redraw the white of its mask; outpaint: extend the image by `outpaint` pixels on each side and draw the new area
                                 * @enum {string}
                                 */
                                mode: "inpaint" | "outpaint";
                                /** @description outpaint mode: the pixels added on each side, { top, right, bottom, left }, each 0–4096 */
                                outpaint?: {
                                    top: number;
                                    right: number;
                                    bottom: number;
                                    left: number;
                                };
                                /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                                seed?: number;
                                /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                                count?: number;
                                /** @description The result of its last run (written by the service) */
                                image?: string;
                                /** @description Whether its job is queued or running (written by the service) */
                                isGenerating?: boolean;
                                /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                resultKey?: string;
                                /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                results?: string[];
                            };
                        } | {
                            id: string;
                            /** @enum {string} */
                            type: "compose";
                            position: {
                                x: number;
                                y: number;
                            };
                            data: {
                                /** @enum {string} */
                                type: "compose";
                                /** @description Layer i's placement for the i-th connected image (bottom first), at most 32; a missing entry: at 0,0, full size, opaque, normal */
                                layers?: {
                                    /** @description left edge on the composition, pixels */
                                    x: number;
                                    /** @description top edge on the composition, pixels */
                                    y: number;
                                    /** @description its image's size times this, 0.01–16 */
                                    scale: number;
                                    opacity: number;
                                    /** @enum {string} */
                                    blend: "normal" | "multiply" | "screen" | "overlay" | "darken" | "lighten" | "color-dodge" | "color-burn" | "hard-light" | "soft-light" | "difference" | "exclusion";
                                    /** @description index of the mask (its masks input, in canvas order) that is its alpha */
                                    mask?: number;
                                    name?: string;
                                    hidden?: boolean;
                                }[];
                                /** @description the composition's width in pixels (1–65535); absent: the first image's */
                                width?: number;
                                /** @description the composition's height in pixels (1–65535); absent: the first image's */
                                height?: number;
                                /** @description A colour #rrggbb under the layers; absent: transparent */
                                background?: string;
                                /** @description The result of its last run (written by the service) */
                                image?: string;
                                /** @description Whether its job is queued or running (written by the service) */
                                isGenerating?: boolean;
                                /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                resultKey?: string;
                                /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                results?: string[];
                            };
                        } | {
                            id: string;
                            /** @enum {string} */
                            type: "upscale";
                            position: {
                                x: number;
                                y: number;
                            };
                            data: {
                                /** @enum {string} */
                                type: "upscale";
                                /** @description The model it upscales with: one that does upscale (GET /api/models); absent: esrgan-slim-2x */
                                model?: string;
                                /** @description The result of its last run (written by the service) */
                                image?: string;
                                /** @description Whether its job is queued or running (written by the service) */
                                isGenerating?: boolean;
                                /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                resultKey?: string;
                                /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                results?: string[];
                            };
                        } | {
                            id: string;
                            /** @enum {string} */
                            type: "remove-background";
                            position: {
                                x: number;
                                y: number;
                            };
                            data: {
                                /** @enum {string} */
                                type: "remove-background";
                                /** @description The model it cuts the subject out with: one that does remove-background (GET /api/models) */
                                model?: string;
                                /** @description The result of its last run (written by the service) */
                                image?: string;
                                /** @description Whether its job is queued or running (written by the service) */
                                isGenerating?: boolean;
                                /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                                resultKey?: string;
                                /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                                results?: string[];
                            };
                        })[];
                        /** @default [] */
                        edges?: {
                            id: string;
                            source: string;
                            target: string;
                            sourceHandle?: string | null;
                            targetHandle?: string | null;
                        }[];
                        /** @description Current version; a stale one is refused with 409 */
                        version?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Canvas"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: string;
                            details?: string;
                            version: number;
                        };
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Generate an image from one or more images and a prompt */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        images: string[];
                        prompt: string;
                        /** @description With nodeId: the project whose canvas node shows this generation (owner or editor; docs/api.md "Image generation") */
                        projectId?: string;
                        /** @description With projectId: the id of the node whose `data` shows the generation's state (isGenerating, image, error) */
                        nodeId?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            imageBase64: string;
                            imageUrl: string;
                            text?: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Upgrade required: the free daily quota (FREE_GENERATIONS_PER_DAY) or monthly budget (FREE_BUDGET_USD_PER_MONTH) is used up */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Forbidden: a viewer of projectId cannot generate into it */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Project not found: projectId names no project the user may see */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["NodeBusy"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (RATE_LIMIT_GENERATIONS_PER_MINUTE), Too many generations in flight (GENERATIONS_IN_FLIGHT_PER_USER) or Image model is busy; Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: string;
                            details?: string;
                            text?: string;
                        };
                    };
                };
                /** @description Storage unavailable: the object store could not be reached (reading a stored input or storing the result); Retry-After says when to retry */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in user's generations, newest first; searched by prompt words (q), filtered by project and model */
        get: {
            parameters: {
                query?: {
                    cursor?: string;
                    limit?: number;
                    /** @description Words of the prompt (any order; the last one may be the start of a word). Quotes and operators are ignored. */
                    q?: string;
                    /** @description Only generations made into this project */
                    projectId?: string;
                    /** @description Only generations of this model */
                    model?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["Generation"][];
                            nextCursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your generation jobs, newest first */
        get: {
            parameters: {
                query?: {
                    status?: "queued" | "running" | "succeeded" | "failed" | "canceled";
                    projectId?: string;
                    cursor?: string;
                    limit?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["GenerationJob"][];
                            nextCursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Queue a generation job (answered at once; follow it with GET /api/generations/{id}) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The input images (as POST /api/image); omitted with projectId and nodeId and no prompt: the node's job, its inputs from its incoming edges */
                        images?: string[];
                        /** @description The prompt (as POST /api/image); empty or omitted for a model that takes none (GET /api/models `takesPrompt: false`); omitted with projectId and nodeId and no images: the node's own */
                        prompt?: string;
                        /** @description With nodeId: the project whose canvas node shows this generation (owner or editor; docs/api.md "Image generation") */
                        projectId?: string;
                        /** @description With projectId: the id of the node whose `data` shows the generation's state (isGenerating, image, error) */
                        nodeId?: string;
                        /** @description The model to run: an id from GET /api/models (default: the deployment's default, local) */
                        model?: string;
                        /** @description Write the prompt into the output PNG's XMP metadata (default false: the PNG never carries the prompt) */
                        promptInMetadata?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            /** @enum {string} */
                            status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                            queuePosition: number | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Forbidden: a viewer of projectId, or a token without the generate scope */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Project not found: projectId names no project the user may see */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["NodeBusy"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (RATE_LIMIT_GENERATIONS_PER_MINUTE, shared with POST /api/image) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Service unavailable: the database cannot be reached; nothing was queued */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/generations/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Server-Sent Events of your jobs' changes (`event: job`, `data`: the job as GET /api/generations/{id}); reconnect with Last-Event-ID for what you missed. A stream the service ends gets a last `event: closed` with `data: {"reason": …}` (too-many-streams, signed-out, token-revoked, token-expired): do not reconnect on it */
        get: {
            parameters: {
                query?: {
                    /** @description The same as the Last-Event-ID header, for clients that cannot send it */
                    lastEventId?: string;
                };
                header?: {
                    "last-event-id"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description text/event-stream: `id: <n>`, `event: job`, `data: <GenerationJob>` (or `event: run`, `data: <Run>` for a run you started); `: ping` comments keep the connection alive; `event: closed`, `data: {"reason": …}` last when the service ends it */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": string;
                    };
                };
                /** @description Invalid Last-Event-ID: not an event id */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/generations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One of your generation jobs, with the lineage of its output */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["GenerationJobDetail"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Job not found: no job of yours has that id */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/generations/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a queued or running generation job (a running one is aborted and records nothing) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["GenerationJob"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Job not found: no job of yours has that id */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Job already finished: it succeeded, failed or was canceled */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The image models this deployment runs (a provider without its key configured is absent) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            models: components["schemas"]["Model"][];
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Upload one image (multipart/form-data, field `file`) → its permanent public URL */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            url: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/checkout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Start a checkout of the Pro plan for the signed-in user (the customer is the session's user, never the query's)
         * @description Starts only on a navigation from this site (`Sec-Fetch-Site: same-origin` or `none`, and no Origin or Referer of another origin) or with an API token with the `billing` scope; otherwise answers a page whose button posts to `POST /api/checkout`.
         */
        get: {
            parameters: {
                query?: {
                    /** @description `json` answers `{ url }` instead of redirecting (as does `Accept: application/json`) */
                    format?: "json";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The hosted checkout URL (with `format=json` or `Accept: application/json`), or — when the request is not a navigation from this site nor made with an API token — a page whose button POSTs to the same path; nothing is created then */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            url: string;
                        };
                        "text/html": string;
                    };
                };
                /** @description Redirect to the hosted checkout (Location header) */
                302: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A token without the billing scope; a GET asking for JSON that is not a navigation from this site; a cross-site POST */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Start a checkout of the Pro plan for the signed-in user (the customer is the session's user, never the query's); a form's POST is redirected (303), `format=json` or `Accept: application/json` answers `{ url }` */
        post: {
            parameters: {
                query?: {
                    /** @description `json` answers `{ url }` instead of redirecting (as does `Accept: application/json`) */
                    format?: "json";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The hosted checkout URL (with `format=json` or `Accept: application/json`) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            url: string;
                        };
                    };
                };
                /** @description Redirect to the hosted checkout (Location header) */
                303: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A token without the billing scope; a GET asking for JSON that is not a navigation from this site; a cross-site POST */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/portal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open the payment provider's customer portal for the signed-in user (400 when the user has never paid)
         * @description Starts only on a navigation from this site (`Sec-Fetch-Site: same-origin` or `none`, and no Origin or Referer of another origin) or with an API token with the `billing` scope; otherwise answers a page whose button posts to `POST /api/portal`.
         */
        get: {
            parameters: {
                query?: {
                    /** @description `json` answers `{ url }` instead of redirecting (as does `Accept: application/json`) */
                    format?: "json";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The customer portal URL (with `format=json` or `Accept: application/json`), or — when the request is not a navigation from this site nor made with an API token — a page whose button POSTs to the same path; nothing is created then */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            url: string;
                        };
                        "text/html": string;
                    };
                };
                /** @description Redirect to the customer portal (Location header) */
                302: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A token without the billing scope; a GET asking for JSON that is not a navigation from this site; a cross-site POST */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Open the payment provider's customer portal for the signed-in user (400 when the user has never paid); a form's POST is redirected (303), `format=json` or `Accept: application/json` answers `{ url }` */
        post: {
            parameters: {
                query?: {
                    /** @description `json` answers `{ url }` instead of redirecting (as does `Accept: application/json`) */
                    format?: "json";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The customer portal URL (with `format=json` or `Accept: application/json`) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            url: string;
                        };
                    };
                };
                /** @description Redirect to the customer portal (Location header) */
                303: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A token without the billing scope; a GET asking for JSON that is not a navigation from this site; a cross-site POST */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/upload/templates/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete one of your templates */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            success: true;
                            /**
                             * Format: uuid
                             * @description the new template (on publishing)
                             */
                            id?: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/project/shared": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Projects shared with you (by your email), oldest first, with your role and the owner */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SharedProject"][];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/project/{projectId}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A project's owner and members (for the owner and the members) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ProjectMembers"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Invite someone by email as editor or viewer, or change a member's role (owner only): 201 when new, 200 when changed */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * Format: email
                         * @description the person to invite (matched case-insensitively)
                         */
                        email: string;
                        /** @enum {string} */
                        role: "editor" | "viewer";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ProjectMember"];
                    };
                };
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ProjectMember"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/project/{projectId}/members/{email}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a member (owner), or leave a project shared with you (your own email) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                    email: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": null;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/project/{projectId}/share-link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make a read-only link to the project, replacing any earlier one (owner only); the token is shown only now */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ShareLink"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        /** Revoke the project's read-only link, if any (owner only) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": null;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/project/{projectId}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The canvas's history: restore points and named versions, newest first (owner and members) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CanvasVersions"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Keep the canvas as it is now as a named version (owner and editors) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            version: components["schemas"]["CanvasVersion"];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/project/{projectId}/versions/{versionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A version and its canvas, read-only (owner and members) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                    versionId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CanvasVersionPreview"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/project/{projectId}/versions/{versionId}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make the canvas what the version holds, as a new change everyone sees; the canvas as it was is kept as a version first (owner and editors) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                    versionId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CanvasRestored"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your personal API tokens (never their secrets); needs a signed-in session, not a token */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiTokens"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Create a personal API token: its secret is answered only now; needs a signed-in session, not a token */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description to recognise the token by */
                        name: string;
                        /** @description `read`: GET and HEAD of the API; `write`: the other methods, except generation; `generate`: POST /api/image */
                        scopes: ("read" | "write" | "generate" | "billing")[];
                        /** @description days until the token stops working (1–365); omitted or null: it never expires */
                        expiresInDays?: number | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CreatedApiToken"];
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke one of your API tokens: it stops working at once, on every instance; needs a signed-in session, not a token */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": null;
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{id}/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every generation made into the project, by anyone, newest first (owner and members) */
        get: {
            parameters: {
                query?: {
                    /** @description Only this canvas node's generations */
                    nodeId?: string;
                    /** @description Words of the prompt (any order; the last one may be the start of a word). Quotes and operators are ignored. */
                    q?: string;
                    /** @description Only the generations of this model (an id, as GET /api/models names them) */
                    model?: string;
                    cursor?: string;
                    limit?: number;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["ProjectGeneration"][];
                            nextCursor: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Project not found: no project the user may see */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{id}/generations/{generationId}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A generation of the project as a PNG attachment named `<project name> - <prompt start>.png` (owner and members) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    generationId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The PNG (image/png), with Content-Disposition: attachment */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Project not found, or Generation not found: not one made into this project, or its image is gone */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{id}/nodes/{nodeId}/psd": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A compose node's result as a layered PSD (image/vnd.adobe.photoshop attachment): one layer per image with its name, position, opacity, blend mode and visibility, its mask baked into its alpha, over the composite (owner and members) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    nodeId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The PSD (image/vnd.adobe.photoshop), with Content-Disposition: attachment */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description Invalid nodeId: the node is not a compose node; or its layers or data cannot be read */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Project not found (no project the user may see); Node not found; or Generation not found: the node has no result yet */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description PSD too large: it would pass PSD_MAX_BYTES (details: its size) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (RATE_LIMIT_GENERATIONS_PER_MINUTE PSDs a minute per user: each is image work) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/spend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What the signed-in user's generations cost: this calendar month (UTC), today, per project; and their daily budget for runs */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["UserSpend"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{id}/spend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What the project's generations cost, per person (owner and members, viewers too) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ProjectSpend"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Project not found: no project the user may see */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{id}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The project's runs, newest first (owner and members) */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            items: components["schemas"]["Run"][];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** Run part of the project's graph (answered at once; follow it with GET …/runs/{runId} or the `run` events of GET /api/generations/events) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description node: the node after what it depends on that is stale; downstream: the node and everything after it; selection: these nodes; all: every node that runs
                         * @enum {string}
                         */
                        mode: "node" | "downstream" | "selection" | "all";
                        /** @description node, downstream: exactly one; selection: at least one; all: none */
                        nodeIds?: string[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Run"];
                    };
                };
                /** @description The run cannot be planned (invalid_run: a cycle, a node that cannot run, a mode without its nodes, nothing to run; too_many_jobs): nothing queued */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: string;
                            details?: string;
                            /** @description The nodes the problem is about */
                            nodeIds?: string[];
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The estimate would pass USER_DAILY_BUDGET_USD; nothing queued */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: string;
                            details?: string;
                            budgetUsd: number;
                            spentTodayUsd: number;
                            estimateUsd: number;
                        };
                    };
                };
                /** @description Forbidden: a viewer */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Project not found (no project you may see), or a node the canvas does not have */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: string;
                            details?: string;
                            /** @description The nodes the problem is about */
                            nodeIds?: string[];
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{id}/runs/estimate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** What the run would cost now, per node (cached jobs cost nothing) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description node: the node after what it depends on that is stale; downstream: the node and everything after it; selection: these nodes; all: every node that runs
                         * @enum {string}
                         */
                        mode: "node" | "downstream" | "selection" | "all";
                        /** @description node, downstream: exactly one; selection: at least one; all: none */
                        nodeIds?: string[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["RunEstimate"];
                    };
                };
                /** @description The run cannot be planned (invalid_run: a cycle, a node that cannot run, a mode without its nodes, nothing to run; too_many_jobs): nothing queued */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: string;
                            details?: string;
                            /** @description The nodes the problem is about */
                            nodeIds?: string[];
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Forbidden: a viewer */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Project not found (no project you may see), or a node the canvas does not have */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: string;
                            details?: string;
                            /** @description The nodes the problem is about */
                            nodeIds?: string[];
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{id}/runs/{runId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One run of the project, with its jobs (owner and members) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    runId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Run"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Project or run not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/projects/{id}/runs/{runId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a running run: its queued and running jobs are canceled, its waiting ones too */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    runId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Run"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Project or run not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Run already finished */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/project/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** When each project you own or are a member of was last edited, and its canvas version */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ProjectActivity"][];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/project/{projectId}/thumbnail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A 320×200 PNG of the canvas (owner and members); revalidate with If-None-Match */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The thumbnail (image/png), with an ETag naming the canvas version it shows */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": unknown;
                    };
                };
                /** @description The ETag sent in If-None-Match is current */
                304: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": null;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Project not found: no project the user may see */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Storage unavailable: the object store is down or full, or did not answer within THUMBNAIL_DEADLINE_MS; Retry-After says when to retry */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/user/project/{projectId}/example": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Put the example canvas (two pictures and a generation node) into an empty project (owner and editors) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    projectId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description false: the canvas was not empty, nothing changed */
                            seeded: boolean;
                            /** @description the canvas version after */
                            version: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Forbidden: a viewer */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Project not found: no project the user may see */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ErrorInput: {
            error: string;
            details?: string;
        };
        /** @description Node is already running: the node has a queued or running job */
        NodeBusyInput: {
            error: string;
            details?: string;
            /** @description the node's queued or running job: follow or cancel it */
            jobId: string;
        };
        UserInput: {
            /** Format: uuid */
            id: string;
            email: string;
            name: string;
            image: string;
            /** @description ISO 8601 */
            createdAt: string;
            isPro: boolean;
            provider: string;
            paymentsCustomerId?: string;
            subscriptionStatus?: string;
        };
        ProjectInput: {
            /** Format: uuid */
            id: string;
            userId: string;
            name: string;
            /** @description ISO 8601 */
            createdDate: string;
        };
        ClientConfigInput: {
            /** @description null when analytics is not configured */
            analytics: {
                token: string;
                /** @description analytics API host (PUBLIC_ANALYTICS_PROXY_API or the provider default) */
                apiHost: string;
            } | null;
            payments: {
                /** @description true when payments are configured (access token and product id): the client offers Upgrade and Manage subscription */
                enabled: boolean;
            };
            /** @description What POST /api/upload accepts, so a client can say why it refuses a file before sending it */
            uploads: {
                /** @description The largest file POST /api/upload takes (UPLOAD_MAX_BYTES); larger: 413 File too large */
                maxBytes: number;
                /** @description The image types an upload may be (detected from its bytes; anything else: 400 Unsupported file type), with their usual names and file extensions */
                types: {
                    type: string;
                    name: string;
                    extensions: string[];
                }[];
            };
            /** @description The canvas limits a client keeps to, so that the live canvas never refuses what it writes */
            canvas: {
                /** @description The longest prompt a node may hold (PROMPT_MAX_CHARS); a longer one is refused by REST (400) and by the live canvas (4400 invalid-prompt) */
                promptMaxChars: number;
                /** @description The most nodes a canvas may hold (CANVAS_MAX_NODES; live canvas: 4413 too-many-nodes) */
                maxNodes: number;
                /** @description The most edges a canvas may hold (CANVAS_MAX_EDGES; live canvas: 4413 too-many-edges) */
                maxEdges: number;
            };
        };
        NodePortInput: {
            /** @description the handle name an edge's sourceHandle (an output) or targetHandle (an input) gives */
            name: string;
            label?: string;
            /**
             * @description what travels along the edge; a mask also fits an image input
             * @enum {string}
             */
            value: "image" | "mask" | "text" | "video";
            /** @description whether the port takes (or gives) a list of values rather than one */
            list: boolean;
            /** @description the port an edge without a handle (absent or null) means */
            default: boolean;
        };
        NodeKindInput: {
            /** @description the node's `type` and its `data.type` */
            type: string;
            label: string;
            /** @description changes when what the kind does with the same data changes */
            version: number;
            inputs: components["schemas"]["NodePortInput"][];
            outputs: components["schemas"]["NodePortInput"][];
            /** @description the job task a node of this kind runs (start it with POST /api/generations); null: it does not run */
            task: string | null;
            /** @description JSON Schema (draft 2020-12) of the node's `data`; keys it does not name are dropped by a save */
            data: {
                [key: string]: unknown;
            };
        };
        NodeKindsInput: {
            /** @description in menu order */
            kinds: components["schemas"]["NodeKindInput"][];
        };
        LineageInput: {
            generationId: string;
            /** @description The generation job that made it (POST /api/generations); null for POST /api/image */
            jobId: string | null;
            /** @description The project it was made into; null without one (or once that project is deleted) */
            projectId: string | null;
            nodeId: string | null;
            /** @description The project's canvas version when the generation started */
            canvasVersion: number | null;
            model: string;
            /** @description The provider's model version when its answer states one, else the model id */
            modelVersion: string | null;
            /** @description Each input as the model received it */
            inputs: {
                url: string;
                /** @description SHA-256 of the bytes, hex; null on generations recorded before lineage */
                sha256: string | null;
                /** @description Size in bytes; null on generations recorded before lineage */
                bytes: number | null;
            }[];
            output: {
                url: string;
                /** @description SHA-256 of the bytes, hex; null on generations recorded before lineage */
                sha256: string | null;
                /** @description Size in bytes; null on generations recorded before lineage */
                bytes: number | null;
            };
            durations: {
                /** @description Waiting in the job queue; null when not made by a job */
                queuedMs: number | null;
                /** @description The model call */
                modelMs: number | null;
                /** @description From the request (or the job) to the record, queue included */
                totalMs: number | null;
            };
            /** @description What the call cost: as the provider stated it, else the model's list price per image; null when neither is known */
            cost: {
                amount: number;
                currency: string;
                /**
                 * @description provider: stated for this call; list price: the model’s price per image
                 * @enum {string}
                 */
                basis?: "provider" | "list price";
            } | null;
            /** @description Generations (the author's own, or of the same project) whose output is one of the inputs */
            parentIds: string[];
            /** @description The output PNG's XMP carries the prompt (opted in) */
            promptInMetadata: boolean;
        };
        ProjectGenerationInput: {
            id: string;
            prompt: string;
            outputImageUrl: string;
            model: string;
            createdAt: string;
            nodeId: string | null;
            author: {
                id: string;
                name: string;
            };
            lineage: components["schemas"]["LineageInput"];
            /** @description What the model said beside the image (the offline engine: what it did, in words); null when it said nothing */
            text: string | null;
            /** @description The cache key of the run's job that made it (docs/api.md "Runs"): "Use this" brings it back as the node's resultKey; null when not made by a run */
            cacheKey: string | null;
            /** @description The seed it was made with (a run's job); null when not known */
            seed: number | null;
        };
        GenerationInput: {
            id: string;
            /** @description the user's email */
            userId: string;
            prompt: string;
            inputImages: string[];
            outputImageUrl: string;
            model: string;
            createdAt: string;
        };
        VideoAssetStatusInput: {
            /** @description null while the upload has not produced an asset */
            assetId: string | null;
            /** @description the upload asked for */
            uploadId?: string;
            /** @description the provider's status: `preparing`, `ready`, `errored` (asset); `waiting`, … (upload without an asset) */
            status: string;
            playbackId: string | null;
            /** @description seconds */
            duration: number | null;
        };
        GenerationJobInput: {
            id: string;
            /** @enum {string} */
            status: "queued" | "running" | "succeeded" | "failed" | "canceled";
            /** @description 1 = the next queued job to start (all users); null unless queued */
            queuePosition: number | null;
            createdAt: string;
            startedAt: string | null;
            finishedAt: string | null;
            error: {
                /** @description the status POST /api/image would have answered (derived from the job's error code) */
                status: number;
                error: string;
                details?: string;
            } | null;
            output: {
                imageUrl: string;
            } | null;
            projectId: string | null;
            nodeId: string | null;
            model: string | null;
            /** @description runs started: 2 when the instance running it died and it was retried */
            attempts: number;
            /** @description While running: what the model last said of its progress (updated at most once a second); null otherwise */
            progress: {
                /** @description in the provider's own queue: 1 = next to start */
                queuePosition?: number;
                /** @description steps done of a total */
                step?: {
                    done: number;
                    total: number;
                };
                /** @description the provider's latest log line */
                message?: string;
                /** @description the model's latest preview of the image (OpenAI's partial images), small: a data:image/webp URL */
                preview?: string;
            } | null;
        };
        GenerationJobDetailInput: {
            id: string;
            /** @enum {string} */
            status: "queued" | "running" | "succeeded" | "failed" | "canceled";
            /** @description 1 = the next queued job to start (all users); null unless queued */
            queuePosition: number | null;
            createdAt: string;
            startedAt: string | null;
            finishedAt: string | null;
            error: {
                /** @description the status POST /api/image would have answered (derived from the job's error code) */
                status: number;
                error: string;
                details?: string;
            } | null;
            output: {
                imageUrl: string;
            } | null;
            projectId: string | null;
            nodeId: string | null;
            model: string | null;
            /** @description runs started: 2 when the instance running it died and it was retried */
            attempts: number;
            /** @description While running: what the model last said of its progress (updated at most once a second); null otherwise */
            progress: {
                /** @description in the provider's own queue: 1 = next to start */
                queuePosition?: number;
                /** @description steps done of a total */
                step?: {
                    done: number;
                    total: number;
                };
                /** @description the provider's latest log line */
                message?: string;
                /** @description the model's latest preview of the image (OpenAI's partial images), small: a data:image/webp URL */
                preview?: string;
            } | null;
            /** @description What made the output (docs/api.md "Lineage"); null unless the job succeeded */
            lineage: components["schemas"]["LineageInput"] | null;
            /** @description The run it is a job of (docs/api.md "Runs"); null for a job started alone */
            runId: string | null;
            /** @description A run's job that took an output the project already had for its key: no model call, cost 0; `lineage` is the generation it reuses */
            cacheHit: boolean;
        };
        ModelPriceInput: {
            /** @description US dollars per output image (0: runs on this service or your own server) */
            perImageUsd?: number;
            /** @description US dollars per second of video */
            perSecondUsd?: number;
            /** @description US dollars per 1,000 output tokens (OpenAI bills images as tokens) */
            per1kTokensUsd?: number;
            /** @description With per1kTokensUsd: the output tokens one image is taken to take in an estimate */
            tokensPerImage?: number;
            /** @description The provider's pricing page and the month it was read, or `self-hosted` / `offline` */
            source: string;
        };
        ModelInput: {
            /** @description The value of a generation's `model` (and of a generation node's `data.model`) */
            id: string;
            /**
             * @description Who runs it: `offline` is this service itself, without sending the images anywhere
             * @enum {string}
             */
            provider: "offline" | "gemini" | "openai" | "fal" | "replicate" | "comfyui";
            label: string;
            /** @description Input images one generation with this model may have */
            maxInputs: number;
            /**
             * @description What it reports while it works: nothing, steps done of a total, or preview images
             * @enum {string}
             */
            progress: "none" | "steps" | "previews";
            /** @description The provider's list price of one image in US dollars, when it publishes one */
            costPerImageUsd?: number;
            /** @description Runs on this service, with no key and nothing sent to a provider */
            offline: boolean;
            /** @description Short prompts the model understands, when it understands only some words (the offline engine: each is one operation it applies); absent for a model that takes any prompt */
            readonly promptHints?: string[];
            /** @description false: the model uses no prompt (the upscalers), and a generation with it may have an empty one */
            takesPrompt: boolean;
            /** @description The most pixels (width × height) one input image may have: the model's own limit (the upscalers: UPSCALE_MAX_INPUT_PIXELS) or the service's (INPUT_IMAGE_MAX_PIXELS), the lower */
            maxInputPixels?: number;
            /** @description The model a generation that names none runs (exactly one is, unless the default lacks its key) */
            default: boolean;
            /** @description Its published price and where it was read; absent when the provider publishes none we can use (a run counts its jobs as unpriced) */
            price?: components["schemas"]["ModelPriceInput"];
            /** @description Whether a generation's seed reaches the model (fal's, Replicate's Kontext and Qwen editors, ComfyUI); the others ignore it */
            takesSeed: boolean;
            /** @description What it does, so which node kinds offer it: generate (generation nodes), inpaint (edit nodes; it takes a mask), upscale (upscale nodes), remove-background */
            readonly does: ("generate" | "inpaint" | "upscale" | "remove-background")[];
            /** @description Whether an edit's mask reaches it (the models that do inpaint) */
            takesMask: boolean;
        };
        UserSpendInput: {
            /** @description YYYY-MM (UTC) */
            month: string;
            /** @description the sum of the month's known costs, in US dollars: each as its provider stated it, else its model's list price per image */
            usd: number;
            /** @description generations made this month */
            generations: number;
            /** @description of which with a known cost (the offline engine and models without a published price have none) */
            priced: number;
            /** @description only with a monthly free budget, for a user without Pro */
            freeBudget?: {
                /** @description the monthly free budget (FREE_BUDGET_USD_PER_MONTH) */
                usd: number;
                /** @description what counts against it: this month's priced generations, priced calls that made no image, and what running generations hold */
                usedUsd: number;
                leftUsd: number;
            };
            /** @description what your generations cost since UTC midnight (a job the cache answered costs nothing) */
            todayUsd: number;
            /** @description what your generations cost since the first of this UTC month (the same as usd) */
            monthUsd: number;
            /** @description your daily budget for runs (USER_DAILY_BUDGET_USD); null when there is none */
            budgetUsd: number | null;
            /** @description per project you generated into (that still exists), all time, most spent first */
            projects: {
                projectId: string;
                name: string;
                /** @description what your generations in the project cost, all time */
                usd: number;
                generations: number;
            }[];
        };
        ProjectSpendInput: {
            /** @description what everyone's generations in the project cost, all time, in US dollars */
            totalUsd: number;
            /** @description per person who generated into the project, most spent first */
            people: {
                userId: string;
                name: string;
                email: string;
                usd: number;
                generations: number;
            }[];
        };
        RunEstimateInput: {
            /** @description The priced jobs that would run, in US dollars (cached jobs cost nothing; unpriced ones are left out: see unpriced) */
            totalUsd: number;
            /** @description Jobs whose model has no published price */
            unpriced: number;
            nodes: {
                nodeId: string;
                jobs: number;
                /** @description Every job of the node would come from the cache */
                cached: boolean;
                /** @description null when a job of it that would run has no published price */
                costUsd: number | null;
            }[];
        };
        RunJobInput: {
            nodeId: string;
            /** @description 0-based: the list item (then count) of a fanned node */
            instance: number;
            /** @description Chosen when planned; GET /api/generations/{jobId} answers once it is queued or taken from the cache */
            jobId: string;
            /**
             * @description waiting: its inputs are not ready yet (or another job makes the same result)
             * @enum {string}
             */
            status: "waiting" | "queued" | "running" | "cached" | "succeeded" | "failed" | "skipped" | "canceled";
            cached: boolean;
            /** @description Its cache key (SHA-256 hex) */
            key: string;
            seed: number | null;
            queuePosition: number | null;
            /** @description What it cost once made (cached: 0); null until then or when unknown */
            costUsd: number | null;
            /** @description Why it failed, was skipped or waits */
            reason: string | null;
            imageUrl: string | null;
        };
        RunInput: {
            id: string;
            projectId: string;
            userId: string;
            mode: string;
            nodeIds: string[];
            /** @enum {string} */
            status: "running" | "succeeded" | "failed" | "canceled";
            createdAt: string;
            finishedAt: string | null;
            /** @description In topological order */
            jobs: components["schemas"]["RunJobInput"][];
            estimate: components["schemas"]["RunEstimateInput"];
            /** @description What its jobs cost so far, in US dollars */
            costUsd: number;
        };
        ProjectActivityInput: {
            /** Format: uuid */
            projectId: string;
            /** @description the canvas version (0: no canvas yet); the thumbnail shows this version */
            version: number;
            /** @description ISO 8601: the canvas’s last change, or the project’s creation when it has no canvas yet */
            lastEditedAt: string;
        };
        CanvasInput: {
            id: string;
            projectId: string;
            nodes: ({
                id: string;
                /** @enum {string} */
                type: "upload";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "upload" | "generation";
                    /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                    image?: string;
                    prompt?: string;
                    isGenerating?: boolean;
                    /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                    model?: string;
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "generation";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "upload" | "generation";
                    /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                    image?: string;
                    prompt?: string;
                    isGenerating?: boolean;
                    /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                    model?: string;
                    /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                    seed?: number;
                    /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                    count?: number;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "text";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "text";
                    /** @description the text (may be empty) */
                    text: string;
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "list";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "list";
                    /** @description its texts, at most 500, each at most as long as a prompt (may be empty) */
                    items: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "crop";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "crop";
                    /** @description the box’s left edge (pixels of the input, 0–65535) */
                    x: number;
                    /** @description the box’s top edge (pixels of the input, 0–65535) */
                    y: number;
                    /** @description the box’s width (pixels of the input, 1–65535) */
                    width: number;
                    /** @description the box’s height (pixels of the input, 1–65535) */
                    height: number;
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "resize";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "resize";
                    /** @description the width in pixels (1–65535); absent: from the input's aspect ratio */
                    width?: number;
                    /** @description the height in pixels (1–65535); absent: from the input's aspect ratio */
                    height?: number;
                    /**
                     * @description contain: all of the image inside the box; cover: the box filled, the rest cut; fill: stretched
                     * @enum {string}
                     */
                    fit: "contain" | "cover" | "fill";
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "adjust";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "adjust";
                    /** @description brightness as a multiplier, 0–4 (1 = unchanged) */
                    brightness?: number;
                    /** @description contrast as a multiplier, 0–4 (1 = unchanged) */
                    contrast?: number;
                    /** @description saturation as a multiplier, 0–4 (1 = unchanged) */
                    saturation?: number;
                    /** @description hue turned by this many whole degrees, −360–360 */
                    hue?: number;
                    /** @description in shades of grey */
                    grayscale?: boolean;
                    /** @description in sepia tones */
                    sepia?: boolean;
                    /** @description colours inverted */
                    invert?: boolean;
                    /** @description Gaussian blur of this sigma in pixels, 0–100 (0 = none) */
                    blur?: number;
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "mask";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "mask";
                    /** @description The mask: a PNG image URL, the size of its input image, white where an edit changes the image and black where it keeps it (absent: nothing painted yet) */
                    mask?: string;
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "edit";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "edit";
                    /** @description What to draw in the masked (or added) area; texts wired to its prompt input are joined after it */
                    prompt?: string;
                    /** @description The model it edits with: one that does inpaint (GET /api/models); absent: inpaint-telea */
                    model?: string;
                    /**
                     * @description inpaint: redraw the white of its mask; outpaint: extend the image by `outpaint` pixels on each side and draw the new area
                     * @enum {string}
                     */
                    mode: "inpaint" | "outpaint";
                    /** @description outpaint mode: the pixels added on each side, { top, right, bottom, left }, each 0–4096 */
                    outpaint?: {
                        top: number;
                        right: number;
                        bottom: number;
                        left: number;
                    };
                    /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                    seed?: number;
                    /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                    count?: number;
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "compose";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "compose";
                    /** @description Layer i's placement for the i-th connected image (bottom first), at most 32; a missing entry: at 0,0, full size, opaque, normal */
                    layers?: {
                        /** @description left edge on the composition, pixels */
                        x: number;
                        /** @description top edge on the composition, pixels */
                        y: number;
                        /** @description its image's size times this, 0.01–16 */
                        scale: number;
                        opacity: number;
                        /** @enum {string} */
                        blend: "normal" | "multiply" | "screen" | "overlay" | "darken" | "lighten" | "color-dodge" | "color-burn" | "hard-light" | "soft-light" | "difference" | "exclusion";
                        /** @description index of the mask (its masks input, in canvas order) that is its alpha */
                        mask?: number;
                        name?: string;
                        hidden?: boolean;
                    }[];
                    /** @description the composition's width in pixels (1–65535); absent: the first image's */
                    width?: number;
                    /** @description the composition's height in pixels (1–65535); absent: the first image's */
                    height?: number;
                    /** @description A colour #rrggbb under the layers; absent: transparent */
                    background?: string;
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "upscale";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "upscale";
                    /** @description The model it upscales with: one that does upscale (GET /api/models); absent: esrgan-slim-2x */
                    model?: string;
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "remove-background";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "remove-background";
                    /** @description The model it cuts the subject out with: one that does remove-background (GET /api/models) */
                    model?: string;
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            })[];
            edges: {
                id: string;
                source: string;
                target: string;
                sourceHandle?: string | null;
                targetHandle?: string | null;
            }[];
            version: number;
        };
        TemplateInput: {
            /** Format: uuid */
            id: string;
            templateName: string;
            /** @description the author's current name and picture URL (possibly empty) */
            user: {
                name: string;
                image: string;
            };
            canvas: {
                nodes: ({
                    id: string;
                    /** @enum {string} */
                    type: "upload";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upload" | "generation";
                        /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                        image?: string;
                        prompt?: string;
                        isGenerating?: boolean;
                        /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                        model?: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "generation";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upload" | "generation";
                        /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                        image?: string;
                        prompt?: string;
                        isGenerating?: boolean;
                        /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                        model?: string;
                        /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                        seed?: number;
                        /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                        count?: number;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "text";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "text";
                        /** @description the text (may be empty) */
                        text: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "list";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "list";
                        /** @description its texts, at most 500, each at most as long as a prompt (may be empty) */
                        items: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "crop";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "crop";
                        /** @description the box’s left edge (pixels of the input, 0–65535) */
                        x: number;
                        /** @description the box’s top edge (pixels of the input, 0–65535) */
                        y: number;
                        /** @description the box’s width (pixels of the input, 1–65535) */
                        width: number;
                        /** @description the box’s height (pixels of the input, 1–65535) */
                        height: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "resize";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "resize";
                        /** @description the width in pixels (1–65535); absent: from the input's aspect ratio */
                        width?: number;
                        /** @description the height in pixels (1–65535); absent: from the input's aspect ratio */
                        height?: number;
                        /**
                         * @description contain: all of the image inside the box; cover: the box filled, the rest cut; fill: stretched
                         * @enum {string}
                         */
                        fit: "contain" | "cover" | "fill";
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "adjust";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "adjust";
                        /** @description brightness as a multiplier, 0–4 (1 = unchanged) */
                        brightness?: number;
                        /** @description contrast as a multiplier, 0–4 (1 = unchanged) */
                        contrast?: number;
                        /** @description saturation as a multiplier, 0–4 (1 = unchanged) */
                        saturation?: number;
                        /** @description hue turned by this many whole degrees, −360–360 */
                        hue?: number;
                        /** @description in shades of grey */
                        grayscale?: boolean;
                        /** @description in sepia tones */
                        sepia?: boolean;
                        /** @description colours inverted */
                        invert?: boolean;
                        /** @description Gaussian blur of this sigma in pixels, 0–100 (0 = none) */
                        blur?: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "mask";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "mask";
                        /** @description The mask: a PNG image URL, the size of its input image, white where an edit changes the image and black where it keeps it (absent: nothing painted yet) */
                        mask?: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "edit";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "edit";
                        /** @description What to draw in the masked (or added) area; texts wired to its prompt input are joined after it */
                        prompt?: string;
                        /** @description The model it edits with: one that does inpaint (GET /api/models); absent: inpaint-telea */
                        model?: string;
                        /**
                         * @description inpaint: redraw the white of its mask; outpaint: extend the image by `outpaint` pixels on each side and draw the new area
                         * @enum {string}
                         */
                        mode: "inpaint" | "outpaint";
                        /** @description outpaint mode: the pixels added on each side, { top, right, bottom, left }, each 0–4096 */
                        outpaint?: {
                            top: number;
                            right: number;
                            bottom: number;
                            left: number;
                        };
                        /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                        seed?: number;
                        /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                        count?: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "compose";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "compose";
                        /** @description Layer i's placement for the i-th connected image (bottom first), at most 32; a missing entry: at 0,0, full size, opaque, normal */
                        layers?: {
                            /** @description left edge on the composition, pixels */
                            x: number;
                            /** @description top edge on the composition, pixels */
                            y: number;
                            /** @description its image's size times this, 0.01–16 */
                            scale: number;
                            opacity: number;
                            /** @enum {string} */
                            blend: "normal" | "multiply" | "screen" | "overlay" | "darken" | "lighten" | "color-dodge" | "color-burn" | "hard-light" | "soft-light" | "difference" | "exclusion";
                            /** @description index of the mask (its masks input, in canvas order) that is its alpha */
                            mask?: number;
                            name?: string;
                            hidden?: boolean;
                        }[];
                        /** @description the composition's width in pixels (1–65535); absent: the first image's */
                        width?: number;
                        /** @description the composition's height in pixels (1–65535); absent: the first image's */
                        height?: number;
                        /** @description A colour #rrggbb under the layers; absent: transparent */
                        background?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "upscale";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upscale";
                        /** @description The model it upscales with: one that does upscale (GET /api/models); absent: esrgan-slim-2x */
                        model?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "remove-background";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "remove-background";
                        /** @description The model it cuts the subject out with: one that does remove-background (GET /api/models) */
                        model?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                })[];
                edges: {
                    id: string;
                    source: string;
                    target: string;
                    sourceHandle?: string | null;
                    targetHandle?: string | null;
                }[];
                viewport: {
                    x: number;
                    y: number;
                    zoom: number;
                };
            };
            /** @description ISO 8601 */
            createdAt: string;
            /** @description true when the request carries the author's session */
            mine: boolean;
        };
        TemplateSummaryInput: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @description the author's current name and picture URL (possibly empty) */
            author: {
                name: string;
                image: string;
            };
            nodeCount: number;
            edgeCount: number;
            /** @description the first node image that is a web address (http(s) or a path here); null when there is none */
            previewUrl: string | null;
            /** @description ISO 8601 */
            createdAt: string;
            /** @description true when the request carries the author's session */
            mine: boolean;
        };
        TemplateCanvasInput: {
            /** Format: uuid */
            id: string;
            name: string;
            canvas: {
                nodes: ({
                    id: string;
                    /** @enum {string} */
                    type: "upload";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upload" | "generation";
                        /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                        image?: string;
                        prompt?: string;
                        isGenerating?: boolean;
                        /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                        model?: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "generation";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upload" | "generation";
                        /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                        image?: string;
                        prompt?: string;
                        isGenerating?: boolean;
                        /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                        model?: string;
                        /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                        seed?: number;
                        /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                        count?: number;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "text";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "text";
                        /** @description the text (may be empty) */
                        text: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "list";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "list";
                        /** @description its texts, at most 500, each at most as long as a prompt (may be empty) */
                        items: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "crop";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "crop";
                        /** @description the box’s left edge (pixels of the input, 0–65535) */
                        x: number;
                        /** @description the box’s top edge (pixels of the input, 0–65535) */
                        y: number;
                        /** @description the box’s width (pixels of the input, 1–65535) */
                        width: number;
                        /** @description the box’s height (pixels of the input, 1–65535) */
                        height: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "resize";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "resize";
                        /** @description the width in pixels (1–65535); absent: from the input's aspect ratio */
                        width?: number;
                        /** @description the height in pixels (1–65535); absent: from the input's aspect ratio */
                        height?: number;
                        /**
                         * @description contain: all of the image inside the box; cover: the box filled, the rest cut; fill: stretched
                         * @enum {string}
                         */
                        fit: "contain" | "cover" | "fill";
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "adjust";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "adjust";
                        /** @description brightness as a multiplier, 0–4 (1 = unchanged) */
                        brightness?: number;
                        /** @description contrast as a multiplier, 0–4 (1 = unchanged) */
                        contrast?: number;
                        /** @description saturation as a multiplier, 0–4 (1 = unchanged) */
                        saturation?: number;
                        /** @description hue turned by this many whole degrees, −360–360 */
                        hue?: number;
                        /** @description in shades of grey */
                        grayscale?: boolean;
                        /** @description in sepia tones */
                        sepia?: boolean;
                        /** @description colours inverted */
                        invert?: boolean;
                        /** @description Gaussian blur of this sigma in pixels, 0–100 (0 = none) */
                        blur?: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "mask";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "mask";
                        /** @description The mask: a PNG image URL, the size of its input image, white where an edit changes the image and black where it keeps it (absent: nothing painted yet) */
                        mask?: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "edit";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "edit";
                        /** @description What to draw in the masked (or added) area; texts wired to its prompt input are joined after it */
                        prompt?: string;
                        /** @description The model it edits with: one that does inpaint (GET /api/models); absent: inpaint-telea */
                        model?: string;
                        /**
                         * @description inpaint: redraw the white of its mask; outpaint: extend the image by `outpaint` pixels on each side and draw the new area
                         * @enum {string}
                         */
                        mode: "inpaint" | "outpaint";
                        /** @description outpaint mode: the pixels added on each side, { top, right, bottom, left }, each 0–4096 */
                        outpaint?: {
                            top: number;
                            right: number;
                            bottom: number;
                            left: number;
                        };
                        /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                        seed?: number;
                        /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                        count?: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "compose";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "compose";
                        /** @description Layer i's placement for the i-th connected image (bottom first), at most 32; a missing entry: at 0,0, full size, opaque, normal */
                        layers?: {
                            /** @description left edge on the composition, pixels */
                            x: number;
                            /** @description top edge on the composition, pixels */
                            y: number;
                            /** @description its image's size times this, 0.01–16 */
                            scale: number;
                            opacity: number;
                            /** @enum {string} */
                            blend: "normal" | "multiply" | "screen" | "overlay" | "darken" | "lighten" | "color-dodge" | "color-burn" | "hard-light" | "soft-light" | "difference" | "exclusion";
                            /** @description index of the mask (its masks input, in canvas order) that is its alpha */
                            mask?: number;
                            name?: string;
                            hidden?: boolean;
                        }[];
                        /** @description the composition's width in pixels (1–65535); absent: the first image's */
                        width?: number;
                        /** @description the composition's height in pixels (1–65535); absent: the first image's */
                        height?: number;
                        /** @description A colour #rrggbb under the layers; absent: transparent */
                        background?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "upscale";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upscale";
                        /** @description The model it upscales with: one that does upscale (GET /api/models); absent: esrgan-slim-2x */
                        model?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "remove-background";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "remove-background";
                        /** @description The model it cuts the subject out with: one that does remove-background (GET /api/models) */
                        model?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                })[];
                edges: {
                    id: string;
                    source: string;
                    target: string;
                    sourceHandle?: string | null;
                    targetHandle?: string | null;
                }[];
                viewport: {
                    x: number;
                    y: number;
                    zoom: number;
                };
            };
        };
        ProjectMemberInput: {
            /** @description lower-cased */
            email: string;
            /** @enum {string} */
            role: "editor" | "viewer";
            /** @description ISO 8601, when first invited */
            createdAt: string;
        };
        ProjectMembersInput: {
            owner: {
                email: string;
                name: string;
            };
            /** @description oldest invitation first */
            members: components["schemas"]["ProjectMemberInput"][];
        };
        SharedProjectInput: {
            /** Format: uuid */
            id: string;
            userId: string;
            name: string;
            /** @description ISO 8601 */
            createdDate: string;
            /**
             * @description your role
             * @enum {string}
             */
            role: "editor" | "viewer";
            owner: {
                email: string;
                name: string;
            };
        };
        ShareLinkInput: {
            /** @description 256 random bits, base64url; shown only now */
            token: string;
            /** @description GET it without signing in */
            url: string;
        };
        SharedCanvasInput: {
            project: {
                /** Format: uuid */
                id: string;
                name: string;
            };
            /** @description as GET /api/user/project/canvas answers its owner */
            canvas: components["schemas"]["CanvasInput"] | null;
        };
        CanvasVersionInput: {
            /** Format: uuid */
            id: string;
            /**
             * @description `auto`: a restore point the service took; `named`: a version someone named
             * @enum {string}
             */
            kind: "auto" | "named";
            /** @description a named version’s name; null for a restore point */
            name: string | null;
            /** @description ISO 8601 */
            createdAt: string;
            /**
             * Format: uuid
             * @description the user who named it; null for a restore point
             */
            createdBy: string | null;
        };
        CanvasVersionsInput: {
            /** @description newest first, at most 100 */
            versions: components["schemas"]["CanvasVersionInput"][];
        };
        CanvasVersionPreviewInput: {
            version: components["schemas"]["CanvasVersionInput"];
            /** @description the version’s canvas; no node is shown generating */
            canvas: {
                nodes: ({
                    id: string;
                    /** @enum {string} */
                    type: "upload";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upload" | "generation";
                        /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                        image?: string;
                        prompt?: string;
                        isGenerating?: boolean;
                        /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                        model?: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "generation";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upload" | "generation";
                        /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                        image?: string;
                        prompt?: string;
                        isGenerating?: boolean;
                        /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                        model?: string;
                        /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                        seed?: number;
                        /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                        count?: number;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "text";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "text";
                        /** @description the text (may be empty) */
                        text: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "list";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "list";
                        /** @description its texts, at most 500, each at most as long as a prompt (may be empty) */
                        items: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "crop";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "crop";
                        /** @description the box’s left edge (pixels of the input, 0–65535) */
                        x: number;
                        /** @description the box’s top edge (pixels of the input, 0–65535) */
                        y: number;
                        /** @description the box’s width (pixels of the input, 1–65535) */
                        width: number;
                        /** @description the box’s height (pixels of the input, 1–65535) */
                        height: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "resize";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "resize";
                        /** @description the width in pixels (1–65535); absent: from the input's aspect ratio */
                        width?: number;
                        /** @description the height in pixels (1–65535); absent: from the input's aspect ratio */
                        height?: number;
                        /**
                         * @description contain: all of the image inside the box; cover: the box filled, the rest cut; fill: stretched
                         * @enum {string}
                         */
                        fit: "contain" | "cover" | "fill";
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "adjust";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "adjust";
                        /** @description brightness as a multiplier, 0–4 (1 = unchanged) */
                        brightness?: number;
                        /** @description contrast as a multiplier, 0–4 (1 = unchanged) */
                        contrast?: number;
                        /** @description saturation as a multiplier, 0–4 (1 = unchanged) */
                        saturation?: number;
                        /** @description hue turned by this many whole degrees, −360–360 */
                        hue?: number;
                        /** @description in shades of grey */
                        grayscale?: boolean;
                        /** @description in sepia tones */
                        sepia?: boolean;
                        /** @description colours inverted */
                        invert?: boolean;
                        /** @description Gaussian blur of this sigma in pixels, 0–100 (0 = none) */
                        blur?: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "mask";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "mask";
                        /** @description The mask: a PNG image URL, the size of its input image, white where an edit changes the image and black where it keeps it (absent: nothing painted yet) */
                        mask?: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "edit";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "edit";
                        /** @description What to draw in the masked (or added) area; texts wired to its prompt input are joined after it */
                        prompt?: string;
                        /** @description The model it edits with: one that does inpaint (GET /api/models); absent: inpaint-telea */
                        model?: string;
                        /**
                         * @description inpaint: redraw the white of its mask; outpaint: extend the image by `outpaint` pixels on each side and draw the new area
                         * @enum {string}
                         */
                        mode: "inpaint" | "outpaint";
                        /** @description outpaint mode: the pixels added on each side, { top, right, bottom, left }, each 0–4096 */
                        outpaint?: {
                            top: number;
                            right: number;
                            bottom: number;
                            left: number;
                        };
                        /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                        seed?: number;
                        /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                        count?: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "compose";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "compose";
                        /** @description Layer i's placement for the i-th connected image (bottom first), at most 32; a missing entry: at 0,0, full size, opaque, normal */
                        layers?: {
                            /** @description left edge on the composition, pixels */
                            x: number;
                            /** @description top edge on the composition, pixels */
                            y: number;
                            /** @description its image's size times this, 0.01–16 */
                            scale: number;
                            opacity: number;
                            /** @enum {string} */
                            blend: "normal" | "multiply" | "screen" | "overlay" | "darken" | "lighten" | "color-dodge" | "color-burn" | "hard-light" | "soft-light" | "difference" | "exclusion";
                            /** @description index of the mask (its masks input, in canvas order) that is its alpha */
                            mask?: number;
                            name?: string;
                            hidden?: boolean;
                        }[];
                        /** @description the composition's width in pixels (1–65535); absent: the first image's */
                        width?: number;
                        /** @description the composition's height in pixels (1–65535); absent: the first image's */
                        height?: number;
                        /** @description A colour #rrggbb under the layers; absent: transparent */
                        background?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "upscale";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upscale";
                        /** @description The model it upscales with: one that does upscale (GET /api/models); absent: esrgan-slim-2x */
                        model?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "remove-background";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "remove-background";
                        /** @description The model it cuts the subject out with: one that does remove-background (GET /api/models) */
                        model?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                })[];
                edges: {
                    id: string;
                    source: string;
                    target: string;
                    sourceHandle?: string | null;
                    targetHandle?: string | null;
                }[];
            };
        };
        /** @description the canvas after the restore, as GET /api/user/project/canvas answers it */
        CanvasRestoredInput: {
            canvas: components["schemas"]["CanvasInput"];
        };
        ApiTokenInput: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @description the first characters of the secret (`ic_` and 6 more), to recognise it by */
            prefix: string;
            scopes: ("read" | "write" | "generate" | "billing")[];
            /** @description ISO 8601 */
            createdAt: string;
            /** @description ISO 8601; null: never expires */
            expiresAt: string | null;
            /** @description ISO 8601, recorded at most about once a minute; null: never used */
            lastUsedAt: string | null;
        };
        CreatedApiTokenInput: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @description the first characters of the secret (`ic_` and 6 more), to recognise it by */
            prefix: string;
            scopes: ("read" | "write" | "generate" | "billing")[];
            /** @description ISO 8601 */
            createdAt: string;
            /** @description ISO 8601; null: never expires */
            expiresAt: string | null;
            /** @description ISO 8601, recorded at most about once a minute; null: never used */
            lastUsedAt: string | null;
            /** @description the secret to send as `Authorization: Bearer <token>`; shown only now (the service keeps its hash) */
            token: string;
        };
        ApiTokensInput: {
            /** @description oldest first */
            tokens: components["schemas"]["ApiTokenInput"][];
        };
        Error: {
            error: string;
            details?: string;
        };
        /** @description Node is already running: the node has a queued or running job */
        NodeBusy: {
            error: string;
            details?: string;
            /** @description the node's queued or running job: follow or cancel it */
            jobId: string;
        };
        User: {
            /** Format: uuid */
            id: string;
            email: string;
            name: string;
            image: string;
            /** @description ISO 8601 */
            createdAt: string;
            isPro: boolean;
            provider: string;
            paymentsCustomerId?: string;
            subscriptionStatus?: string;
        };
        Project: {
            /** Format: uuid */
            id: string;
            userId: string;
            name: string;
            /** @description ISO 8601 */
            createdDate: string;
        };
        ClientConfig: {
            /** @description null when analytics is not configured */
            analytics: {
                token: string;
                /** @description analytics API host (PUBLIC_ANALYTICS_PROXY_API or the provider default) */
                apiHost: string;
            } | null;
            payments: {
                /** @description true when payments are configured (access token and product id): the client offers Upgrade and Manage subscription */
                enabled: boolean;
            };
            /** @description What POST /api/upload accepts, so a client can say why it refuses a file before sending it */
            uploads: {
                /** @description The largest file POST /api/upload takes (UPLOAD_MAX_BYTES); larger: 413 File too large */
                maxBytes: number;
                /** @description The image types an upload may be (detected from its bytes; anything else: 400 Unsupported file type), with their usual names and file extensions */
                types: {
                    type: string;
                    name: string;
                    extensions: string[];
                }[];
            };
            /** @description The canvas limits a client keeps to, so that the live canvas never refuses what it writes */
            canvas: {
                /** @description The longest prompt a node may hold (PROMPT_MAX_CHARS); a longer one is refused by REST (400) and by the live canvas (4400 invalid-prompt) */
                promptMaxChars: number;
                /** @description The most nodes a canvas may hold (CANVAS_MAX_NODES; live canvas: 4413 too-many-nodes) */
                maxNodes: number;
                /** @description The most edges a canvas may hold (CANVAS_MAX_EDGES; live canvas: 4413 too-many-edges) */
                maxEdges: number;
            };
        };
        NodePort: {
            /** @description the handle name an edge's sourceHandle (an output) or targetHandle (an input) gives */
            name: string;
            label?: string;
            /**
             * @description what travels along the edge; a mask also fits an image input
             * @enum {string}
             */
            value: "image" | "mask" | "text" | "video";
            /** @description whether the port takes (or gives) a list of values rather than one */
            list: boolean;
            /** @description the port an edge without a handle (absent or null) means */
            default: boolean;
        };
        NodeKind: {
            /** @description the node's `type` and its `data.type` */
            type: string;
            label: string;
            /** @description changes when what the kind does with the same data changes */
            version: number;
            inputs: components["schemas"]["NodePort"][];
            outputs: components["schemas"]["NodePort"][];
            /** @description the job task a node of this kind runs (start it with POST /api/generations); null: it does not run */
            task: string | null;
            /** @description JSON Schema (draft 2020-12) of the node's `data`; keys it does not name are dropped by a save */
            data: {
                [key: string]: unknown;
            };
        };
        NodeKinds: {
            /** @description in menu order */
            kinds: components["schemas"]["NodeKind"][];
        };
        Lineage: {
            generationId: string;
            /** @description The generation job that made it (POST /api/generations); null for POST /api/image */
            jobId: string | null;
            /** @description The project it was made into; null without one (or once that project is deleted) */
            projectId: string | null;
            nodeId: string | null;
            /** @description The project's canvas version when the generation started */
            canvasVersion: number | null;
            model: string;
            /** @description The provider's model version when its answer states one, else the model id */
            modelVersion: string | null;
            /** @description Each input as the model received it */
            inputs: {
                url: string;
                /** @description SHA-256 of the bytes, hex; null on generations recorded before lineage */
                sha256: string | null;
                /** @description Size in bytes; null on generations recorded before lineage */
                bytes: number | null;
            }[];
            output: {
                url: string;
                /** @description SHA-256 of the bytes, hex; null on generations recorded before lineage */
                sha256: string | null;
                /** @description Size in bytes; null on generations recorded before lineage */
                bytes: number | null;
            };
            durations: {
                /** @description Waiting in the job queue; null when not made by a job */
                queuedMs: number | null;
                /** @description The model call */
                modelMs: number | null;
                /** @description From the request (or the job) to the record, queue included */
                totalMs: number | null;
            };
            /** @description What the call cost: as the provider stated it, else the model's list price per image; null when neither is known */
            cost: {
                amount: number;
                currency: string;
                /**
                 * @description provider: stated for this call; list price: the model’s price per image
                 * @enum {string}
                 */
                basis?: "provider" | "list price";
            } | null;
            /** @description Generations (the author's own, or of the same project) whose output is one of the inputs */
            parentIds: string[];
            /** @description The output PNG's XMP carries the prompt (opted in) */
            promptInMetadata: boolean;
        };
        ProjectGeneration: {
            id: string;
            prompt: string;
            outputImageUrl: string;
            model: string;
            createdAt: string;
            nodeId: string | null;
            author: {
                id: string;
                name: string;
            };
            lineage: components["schemas"]["Lineage"];
            /** @description What the model said beside the image (the offline engine: what it did, in words); null when it said nothing */
            text: string | null;
            /** @description The cache key of the run's job that made it (docs/api.md "Runs"): "Use this" brings it back as the node's resultKey; null when not made by a run */
            cacheKey: string | null;
            /** @description The seed it was made with (a run's job); null when not known */
            seed: number | null;
        };
        Generation: {
            id: string;
            /** @description the user's email */
            userId: string;
            prompt: string;
            inputImages: string[];
            outputImageUrl: string;
            model: string;
            createdAt: string;
        };
        VideoAssetStatus: {
            /** @description null while the upload has not produced an asset */
            assetId: string | null;
            /** @description the upload asked for */
            uploadId?: string;
            /** @description the provider's status: `preparing`, `ready`, `errored` (asset); `waiting`, … (upload without an asset) */
            status: string;
            playbackId: string | null;
            /** @description seconds */
            duration: number | null;
        };
        GenerationJob: {
            id: string;
            /** @enum {string} */
            status: "queued" | "running" | "succeeded" | "failed" | "canceled";
            /** @description 1 = the next queued job to start (all users); null unless queued */
            queuePosition: number | null;
            createdAt: string;
            startedAt: string | null;
            finishedAt: string | null;
            error: {
                /** @description the status POST /api/image would have answered (derived from the job's error code) */
                status: number;
                error: string;
                details?: string;
            } | null;
            output: {
                imageUrl: string;
            } | null;
            projectId: string | null;
            nodeId: string | null;
            model: string | null;
            /** @description runs started: 2 when the instance running it died and it was retried */
            attempts: number;
            /** @description While running: what the model last said of its progress (updated at most once a second); null otherwise */
            progress: {
                /** @description in the provider's own queue: 1 = next to start */
                queuePosition?: number;
                /** @description steps done of a total */
                step?: {
                    done: number;
                    total: number;
                };
                /** @description the provider's latest log line */
                message?: string;
                /** @description the model's latest preview of the image (OpenAI's partial images), small: a data:image/webp URL */
                preview?: string;
            } | null;
        };
        GenerationJobDetail: {
            id: string;
            /** @enum {string} */
            status: "queued" | "running" | "succeeded" | "failed" | "canceled";
            /** @description 1 = the next queued job to start (all users); null unless queued */
            queuePosition: number | null;
            createdAt: string;
            startedAt: string | null;
            finishedAt: string | null;
            error: {
                /** @description the status POST /api/image would have answered (derived from the job's error code) */
                status: number;
                error: string;
                details?: string;
            } | null;
            output: {
                imageUrl: string;
            } | null;
            projectId: string | null;
            nodeId: string | null;
            model: string | null;
            /** @description runs started: 2 when the instance running it died and it was retried */
            attempts: number;
            /** @description While running: what the model last said of its progress (updated at most once a second); null otherwise */
            progress: {
                /** @description in the provider's own queue: 1 = next to start */
                queuePosition?: number;
                /** @description steps done of a total */
                step?: {
                    done: number;
                    total: number;
                };
                /** @description the provider's latest log line */
                message?: string;
                /** @description the model's latest preview of the image (OpenAI's partial images), small: a data:image/webp URL */
                preview?: string;
            } | null;
            /** @description What made the output (docs/api.md "Lineage"); null unless the job succeeded */
            lineage: components["schemas"]["Lineage"] | null;
            /** @description The run it is a job of (docs/api.md "Runs"); null for a job started alone */
            runId: string | null;
            /** @description A run's job that took an output the project already had for its key: no model call, cost 0; `lineage` is the generation it reuses */
            cacheHit: boolean;
        };
        ModelPrice: {
            /** @description US dollars per output image (0: runs on this service or your own server) */
            perImageUsd?: number;
            /** @description US dollars per second of video */
            perSecondUsd?: number;
            /** @description US dollars per 1,000 output tokens (OpenAI bills images as tokens) */
            per1kTokensUsd?: number;
            /** @description With per1kTokensUsd: the output tokens one image is taken to take in an estimate */
            tokensPerImage?: number;
            /** @description The provider's pricing page and the month it was read, or `self-hosted` / `offline` */
            source: string;
        };
        Model: {
            /** @description The value of a generation's `model` (and of a generation node's `data.model`) */
            id: string;
            /**
             * @description Who runs it: `offline` is this service itself, without sending the images anywhere
             * @enum {string}
             */
            provider: "offline" | "gemini" | "openai" | "fal" | "replicate" | "comfyui";
            label: string;
            /** @description Input images one generation with this model may have */
            maxInputs: number;
            /**
             * @description What it reports while it works: nothing, steps done of a total, or preview images
             * @enum {string}
             */
            progress: "none" | "steps" | "previews";
            /** @description The provider's list price of one image in US dollars, when it publishes one */
            costPerImageUsd?: number;
            /** @description Runs on this service, with no key and nothing sent to a provider */
            offline: boolean;
            /** @description Short prompts the model understands, when it understands only some words (the offline engine: each is one operation it applies); absent for a model that takes any prompt */
            readonly promptHints?: string[];
            /** @description false: the model uses no prompt (the upscalers), and a generation with it may have an empty one */
            takesPrompt: boolean;
            /** @description The most pixels (width × height) one input image may have: the model's own limit (the upscalers: UPSCALE_MAX_INPUT_PIXELS) or the service's (INPUT_IMAGE_MAX_PIXELS), the lower */
            maxInputPixels?: number;
            /** @description The model a generation that names none runs (exactly one is, unless the default lacks its key) */
            default: boolean;
            /** @description Its published price and where it was read; absent when the provider publishes none we can use (a run counts its jobs as unpriced) */
            price?: components["schemas"]["ModelPrice"];
            /** @description Whether a generation's seed reaches the model (fal's, Replicate's Kontext and Qwen editors, ComfyUI); the others ignore it */
            takesSeed: boolean;
            /** @description What it does, so which node kinds offer it: generate (generation nodes), inpaint (edit nodes; it takes a mask), upscale (upscale nodes), remove-background */
            readonly does: ("generate" | "inpaint" | "upscale" | "remove-background")[];
            /** @description Whether an edit's mask reaches it (the models that do inpaint) */
            takesMask: boolean;
        };
        UserSpend: {
            /** @description YYYY-MM (UTC) */
            month: string;
            /** @description the sum of the month's known costs, in US dollars: each as its provider stated it, else its model's list price per image */
            usd: number;
            /** @description generations made this month */
            generations: number;
            /** @description of which with a known cost (the offline engine and models without a published price have none) */
            priced: number;
            /** @description only with a monthly free budget, for a user without Pro */
            freeBudget?: {
                /** @description the monthly free budget (FREE_BUDGET_USD_PER_MONTH) */
                usd: number;
                /** @description what counts against it: this month's priced generations, priced calls that made no image, and what running generations hold */
                usedUsd: number;
                leftUsd: number;
            };
            /** @description what your generations cost since UTC midnight (a job the cache answered costs nothing) */
            todayUsd: number;
            /** @description what your generations cost since the first of this UTC month (the same as usd) */
            monthUsd: number;
            /** @description your daily budget for runs (USER_DAILY_BUDGET_USD); null when there is none */
            budgetUsd: number | null;
            /** @description per project you generated into (that still exists), all time, most spent first */
            projects: {
                projectId: string;
                name: string;
                /** @description what your generations in the project cost, all time */
                usd: number;
                generations: number;
            }[];
        };
        ProjectSpend: {
            /** @description what everyone's generations in the project cost, all time, in US dollars */
            totalUsd: number;
            /** @description per person who generated into the project, most spent first */
            people: {
                userId: string;
                name: string;
                email: string;
                usd: number;
                generations: number;
            }[];
        };
        RunEstimate: {
            /** @description The priced jobs that would run, in US dollars (cached jobs cost nothing; unpriced ones are left out: see unpriced) */
            totalUsd: number;
            /** @description Jobs whose model has no published price */
            unpriced: number;
            nodes: {
                nodeId: string;
                jobs: number;
                /** @description Every job of the node would come from the cache */
                cached: boolean;
                /** @description null when a job of it that would run has no published price */
                costUsd: number | null;
            }[];
        };
        RunJob: {
            nodeId: string;
            /** @description 0-based: the list item (then count) of a fanned node */
            instance: number;
            /** @description Chosen when planned; GET /api/generations/{jobId} answers once it is queued or taken from the cache */
            jobId: string;
            /**
             * @description waiting: its inputs are not ready yet (or another job makes the same result)
             * @enum {string}
             */
            status: "waiting" | "queued" | "running" | "cached" | "succeeded" | "failed" | "skipped" | "canceled";
            cached: boolean;
            /** @description Its cache key (SHA-256 hex) */
            key: string;
            seed: number | null;
            queuePosition: number | null;
            /** @description What it cost once made (cached: 0); null until then or when unknown */
            costUsd: number | null;
            /** @description Why it failed, was skipped or waits */
            reason: string | null;
            imageUrl: string | null;
        };
        Run: {
            id: string;
            projectId: string;
            userId: string;
            mode: string;
            nodeIds: string[];
            /** @enum {string} */
            status: "running" | "succeeded" | "failed" | "canceled";
            createdAt: string;
            finishedAt: string | null;
            /** @description In topological order */
            jobs: components["schemas"]["RunJob"][];
            estimate: components["schemas"]["RunEstimate"];
            /** @description What its jobs cost so far, in US dollars */
            costUsd: number;
        };
        ProjectActivity: {
            /** Format: uuid */
            projectId: string;
            /** @description the canvas version (0: no canvas yet); the thumbnail shows this version */
            version: number;
            /** @description ISO 8601: the canvas’s last change, or the project’s creation when it has no canvas yet */
            lastEditedAt: string;
        };
        Canvas: {
            id: string;
            projectId: string;
            nodes: ({
                id: string;
                /** @enum {string} */
                type: "upload";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "upload" | "generation";
                    /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                    image?: string;
                    prompt?: string;
                    isGenerating?: boolean;
                    /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                    model?: string;
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "generation";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "upload" | "generation";
                    /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                    image?: string;
                    prompt?: string;
                    isGenerating?: boolean;
                    /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                    model?: string;
                    /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                    seed?: number;
                    /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                    count?: number;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "text";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "text";
                    /** @description the text (may be empty) */
                    text: string;
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "list";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "list";
                    /** @description its texts, at most 500, each at most as long as a prompt (may be empty) */
                    items: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "crop";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "crop";
                    /** @description the box’s left edge (pixels of the input, 0–65535) */
                    x: number;
                    /** @description the box’s top edge (pixels of the input, 0–65535) */
                    y: number;
                    /** @description the box’s width (pixels of the input, 1–65535) */
                    width: number;
                    /** @description the box’s height (pixels of the input, 1–65535) */
                    height: number;
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "resize";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "resize";
                    /** @description the width in pixels (1–65535); absent: from the input's aspect ratio */
                    width?: number;
                    /** @description the height in pixels (1–65535); absent: from the input's aspect ratio */
                    height?: number;
                    /**
                     * @description contain: all of the image inside the box; cover: the box filled, the rest cut; fill: stretched
                     * @enum {string}
                     */
                    fit: "contain" | "cover" | "fill";
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "adjust";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "adjust";
                    /** @description brightness as a multiplier, 0–4 (1 = unchanged) */
                    brightness?: number;
                    /** @description contrast as a multiplier, 0–4 (1 = unchanged) */
                    contrast?: number;
                    /** @description saturation as a multiplier, 0–4 (1 = unchanged) */
                    saturation?: number;
                    /** @description hue turned by this many whole degrees, −360–360 */
                    hue?: number;
                    /** @description in shades of grey */
                    grayscale?: boolean;
                    /** @description in sepia tones */
                    sepia?: boolean;
                    /** @description colours inverted */
                    invert?: boolean;
                    /** @description Gaussian blur of this sigma in pixels, 0–100 (0 = none) */
                    blur?: number;
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "mask";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "mask";
                    /** @description The mask: a PNG image URL, the size of its input image, white where an edit changes the image and black where it keeps it (absent: nothing painted yet) */
                    mask?: string;
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "edit";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "edit";
                    /** @description What to draw in the masked (or added) area; texts wired to its prompt input are joined after it */
                    prompt?: string;
                    /** @description The model it edits with: one that does inpaint (GET /api/models); absent: inpaint-telea */
                    model?: string;
                    /**
                     * @description inpaint: redraw the white of its mask; outpaint: extend the image by `outpaint` pixels on each side and draw the new area
                     * @enum {string}
                     */
                    mode: "inpaint" | "outpaint";
                    /** @description outpaint mode: the pixels added on each side, { top, right, bottom, left }, each 0–4096 */
                    outpaint?: {
                        top: number;
                        right: number;
                        bottom: number;
                        left: number;
                    };
                    /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                    seed?: number;
                    /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                    count?: number;
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "compose";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "compose";
                    /** @description Layer i's placement for the i-th connected image (bottom first), at most 32; a missing entry: at 0,0, full size, opaque, normal */
                    layers?: {
                        /** @description left edge on the composition, pixels */
                        x: number;
                        /** @description top edge on the composition, pixels */
                        y: number;
                        /** @description its image's size times this, 0.01–16 */
                        scale: number;
                        opacity: number;
                        /** @enum {string} */
                        blend: "normal" | "multiply" | "screen" | "overlay" | "darken" | "lighten" | "color-dodge" | "color-burn" | "hard-light" | "soft-light" | "difference" | "exclusion";
                        /** @description index of the mask (its masks input, in canvas order) that is its alpha */
                        mask?: number;
                        name?: string;
                        hidden?: boolean;
                    }[];
                    /** @description the composition's width in pixels (1–65535); absent: the first image's */
                    width?: number;
                    /** @description the composition's height in pixels (1–65535); absent: the first image's */
                    height?: number;
                    /** @description A colour #rrggbb under the layers; absent: transparent */
                    background?: string;
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "upscale";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "upscale";
                    /** @description The model it upscales with: one that does upscale (GET /api/models); absent: esrgan-slim-2x */
                    model?: string;
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            } | {
                id: string;
                /** @enum {string} */
                type: "remove-background";
                position: {
                    x: number;
                    y: number;
                };
                data: {
                    /** @enum {string} */
                    type: "remove-background";
                    /** @description The model it cuts the subject out with: one that does remove-background (GET /api/models) */
                    model?: string;
                    /** @description The result of its last run (written by the service) */
                    image?: string;
                    /** @description Whether its job is queued or running (written by the service) */
                    isGenerating?: boolean;
                    /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                    resultKey?: string;
                    /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                    results?: string[];
                };
            })[];
            edges: {
                id: string;
                source: string;
                target: string;
                sourceHandle?: string | null;
                targetHandle?: string | null;
            }[];
            version: number;
        };
        Template: {
            /** Format: uuid */
            id: string;
            templateName: string;
            /** @description the author's current name and picture URL (possibly empty) */
            user: {
                name: string;
                image: string;
            };
            canvas: {
                nodes: ({
                    id: string;
                    /** @enum {string} */
                    type: "upload";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upload" | "generation";
                        /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                        image?: string;
                        prompt?: string;
                        isGenerating?: boolean;
                        /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                        model?: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "generation";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upload" | "generation";
                        /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                        image?: string;
                        prompt?: string;
                        isGenerating?: boolean;
                        /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                        model?: string;
                        /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                        seed?: number;
                        /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                        count?: number;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "text";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "text";
                        /** @description the text (may be empty) */
                        text: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "list";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "list";
                        /** @description its texts, at most 500, each at most as long as a prompt (may be empty) */
                        items: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "crop";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "crop";
                        /** @description the box’s left edge (pixels of the input, 0–65535) */
                        x: number;
                        /** @description the box’s top edge (pixels of the input, 0–65535) */
                        y: number;
                        /** @description the box’s width (pixels of the input, 1–65535) */
                        width: number;
                        /** @description the box’s height (pixels of the input, 1–65535) */
                        height: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "resize";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "resize";
                        /** @description the width in pixels (1–65535); absent: from the input's aspect ratio */
                        width?: number;
                        /** @description the height in pixels (1–65535); absent: from the input's aspect ratio */
                        height?: number;
                        /**
                         * @description contain: all of the image inside the box; cover: the box filled, the rest cut; fill: stretched
                         * @enum {string}
                         */
                        fit: "contain" | "cover" | "fill";
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "adjust";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "adjust";
                        /** @description brightness as a multiplier, 0–4 (1 = unchanged) */
                        brightness?: number;
                        /** @description contrast as a multiplier, 0–4 (1 = unchanged) */
                        contrast?: number;
                        /** @description saturation as a multiplier, 0–4 (1 = unchanged) */
                        saturation?: number;
                        /** @description hue turned by this many whole degrees, −360–360 */
                        hue?: number;
                        /** @description in shades of grey */
                        grayscale?: boolean;
                        /** @description in sepia tones */
                        sepia?: boolean;
                        /** @description colours inverted */
                        invert?: boolean;
                        /** @description Gaussian blur of this sigma in pixels, 0–100 (0 = none) */
                        blur?: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "mask";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "mask";
                        /** @description The mask: a PNG image URL, the size of its input image, white where an edit changes the image and black where it keeps it (absent: nothing painted yet) */
                        mask?: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "edit";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "edit";
                        /** @description What to draw in the masked (or added) area; texts wired to its prompt input are joined after it */
                        prompt?: string;
                        /** @description The model it edits with: one that does inpaint (GET /api/models); absent: inpaint-telea */
                        model?: string;
                        /**
                         * @description inpaint: redraw the white of its mask; outpaint: extend the image by `outpaint` pixels on each side and draw the new area
                         * @enum {string}
                         */
                        mode: "inpaint" | "outpaint";
                        /** @description outpaint mode: the pixels added on each side, { top, right, bottom, left }, each 0–4096 */
                        outpaint?: {
                            top: number;
                            right: number;
                            bottom: number;
                            left: number;
                        };
                        /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                        seed?: number;
                        /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                        count?: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "compose";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "compose";
                        /** @description Layer i's placement for the i-th connected image (bottom first), at most 32; a missing entry: at 0,0, full size, opaque, normal */
                        layers?: {
                            /** @description left edge on the composition, pixels */
                            x: number;
                            /** @description top edge on the composition, pixels */
                            y: number;
                            /** @description its image's size times this, 0.01–16 */
                            scale: number;
                            opacity: number;
                            /** @enum {string} */
                            blend: "normal" | "multiply" | "screen" | "overlay" | "darken" | "lighten" | "color-dodge" | "color-burn" | "hard-light" | "soft-light" | "difference" | "exclusion";
                            /** @description index of the mask (its masks input, in canvas order) that is its alpha */
                            mask?: number;
                            name?: string;
                            hidden?: boolean;
                        }[];
                        /** @description the composition's width in pixels (1–65535); absent: the first image's */
                        width?: number;
                        /** @description the composition's height in pixels (1–65535); absent: the first image's */
                        height?: number;
                        /** @description A colour #rrggbb under the layers; absent: transparent */
                        background?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "upscale";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upscale";
                        /** @description The model it upscales with: one that does upscale (GET /api/models); absent: esrgan-slim-2x */
                        model?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "remove-background";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "remove-background";
                        /** @description The model it cuts the subject out with: one that does remove-background (GET /api/models) */
                        model?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                })[];
                edges: {
                    id: string;
                    source: string;
                    target: string;
                    sourceHandle?: string | null;
                    targetHandle?: string | null;
                }[];
                viewport: {
                    x: number;
                    y: number;
                    zoom: number;
                };
            };
            /** @description ISO 8601 */
            createdAt: string;
            /** @description true when the request carries the author's session */
            mine: boolean;
        };
        TemplateSummary: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @description the author's current name and picture URL (possibly empty) */
            author: {
                name: string;
                image: string;
            };
            nodeCount: number;
            edgeCount: number;
            /** @description the first node image that is a web address (http(s) or a path here); null when there is none */
            previewUrl: string | null;
            /** @description ISO 8601 */
            createdAt: string;
            /** @description true when the request carries the author's session */
            mine: boolean;
        };
        TemplateCanvas: {
            /** Format: uuid */
            id: string;
            name: string;
            canvas: {
                nodes: ({
                    id: string;
                    /** @enum {string} */
                    type: "upload";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upload" | "generation";
                        /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                        image?: string;
                        prompt?: string;
                        isGenerating?: boolean;
                        /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                        model?: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "generation";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upload" | "generation";
                        /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                        image?: string;
                        prompt?: string;
                        isGenerating?: boolean;
                        /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                        model?: string;
                        /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                        seed?: number;
                        /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                        count?: number;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "text";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "text";
                        /** @description the text (may be empty) */
                        text: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "list";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "list";
                        /** @description its texts, at most 500, each at most as long as a prompt (may be empty) */
                        items: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "crop";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "crop";
                        /** @description the box’s left edge (pixels of the input, 0–65535) */
                        x: number;
                        /** @description the box’s top edge (pixels of the input, 0–65535) */
                        y: number;
                        /** @description the box’s width (pixels of the input, 1–65535) */
                        width: number;
                        /** @description the box’s height (pixels of the input, 1–65535) */
                        height: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "resize";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "resize";
                        /** @description the width in pixels (1–65535); absent: from the input's aspect ratio */
                        width?: number;
                        /** @description the height in pixels (1–65535); absent: from the input's aspect ratio */
                        height?: number;
                        /**
                         * @description contain: all of the image inside the box; cover: the box filled, the rest cut; fill: stretched
                         * @enum {string}
                         */
                        fit: "contain" | "cover" | "fill";
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "adjust";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "adjust";
                        /** @description brightness as a multiplier, 0–4 (1 = unchanged) */
                        brightness?: number;
                        /** @description contrast as a multiplier, 0–4 (1 = unchanged) */
                        contrast?: number;
                        /** @description saturation as a multiplier, 0–4 (1 = unchanged) */
                        saturation?: number;
                        /** @description hue turned by this many whole degrees, −360–360 */
                        hue?: number;
                        /** @description in shades of grey */
                        grayscale?: boolean;
                        /** @description in sepia tones */
                        sepia?: boolean;
                        /** @description colours inverted */
                        invert?: boolean;
                        /** @description Gaussian blur of this sigma in pixels, 0–100 (0 = none) */
                        blur?: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "mask";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "mask";
                        /** @description The mask: a PNG image URL, the size of its input image, white where an edit changes the image and black where it keeps it (absent: nothing painted yet) */
                        mask?: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "edit";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "edit";
                        /** @description What to draw in the masked (or added) area; texts wired to its prompt input are joined after it */
                        prompt?: string;
                        /** @description The model it edits with: one that does inpaint (GET /api/models); absent: inpaint-telea */
                        model?: string;
                        /**
                         * @description inpaint: redraw the white of its mask; outpaint: extend the image by `outpaint` pixels on each side and draw the new area
                         * @enum {string}
                         */
                        mode: "inpaint" | "outpaint";
                        /** @description outpaint mode: the pixels added on each side, { top, right, bottom, left }, each 0–4096 */
                        outpaint?: {
                            top: number;
                            right: number;
                            bottom: number;
                            left: number;
                        };
                        /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                        seed?: number;
                        /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                        count?: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "compose";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "compose";
                        /** @description Layer i's placement for the i-th connected image (bottom first), at most 32; a missing entry: at 0,0, full size, opaque, normal */
                        layers?: {
                            /** @description left edge on the composition, pixels */
                            x: number;
                            /** @description top edge on the composition, pixels */
                            y: number;
                            /** @description its image's size times this, 0.01–16 */
                            scale: number;
                            opacity: number;
                            /** @enum {string} */
                            blend: "normal" | "multiply" | "screen" | "overlay" | "darken" | "lighten" | "color-dodge" | "color-burn" | "hard-light" | "soft-light" | "difference" | "exclusion";
                            /** @description index of the mask (its masks input, in canvas order) that is its alpha */
                            mask?: number;
                            name?: string;
                            hidden?: boolean;
                        }[];
                        /** @description the composition's width in pixels (1–65535); absent: the first image's */
                        width?: number;
                        /** @description the composition's height in pixels (1–65535); absent: the first image's */
                        height?: number;
                        /** @description A colour #rrggbb under the layers; absent: transparent */
                        background?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "upscale";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upscale";
                        /** @description The model it upscales with: one that does upscale (GET /api/models); absent: esrgan-slim-2x */
                        model?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "remove-background";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "remove-background";
                        /** @description The model it cuts the subject out with: one that does remove-background (GET /api/models) */
                        model?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                })[];
                edges: {
                    id: string;
                    source: string;
                    target: string;
                    sourceHandle?: string | null;
                    targetHandle?: string | null;
                }[];
                viewport: {
                    x: number;
                    y: number;
                    zoom: number;
                };
            };
        };
        ProjectMember: {
            /** @description lower-cased */
            email: string;
            /** @enum {string} */
            role: "editor" | "viewer";
            /** @description ISO 8601, when first invited */
            createdAt: string;
        };
        ProjectMembers: {
            owner: {
                email: string;
                name: string;
            };
            /** @description oldest invitation first */
            members: components["schemas"]["ProjectMember"][];
        };
        SharedProject: {
            /** Format: uuid */
            id: string;
            userId: string;
            name: string;
            /** @description ISO 8601 */
            createdDate: string;
            /**
             * @description your role
             * @enum {string}
             */
            role: "editor" | "viewer";
            owner: {
                email: string;
                name: string;
            };
        };
        ShareLink: {
            /** @description 256 random bits, base64url; shown only now */
            token: string;
            /** @description GET it without signing in */
            url: string;
        };
        SharedCanvas: {
            project: {
                /** Format: uuid */
                id: string;
                name: string;
            };
            /** @description as GET /api/user/project/canvas answers its owner */
            canvas: components["schemas"]["Canvas"] | null;
        };
        CanvasVersion: {
            /** Format: uuid */
            id: string;
            /**
             * @description `auto`: a restore point the service took; `named`: a version someone named
             * @enum {string}
             */
            kind: "auto" | "named";
            /** @description a named version’s name; null for a restore point */
            name: string | null;
            /** @description ISO 8601 */
            createdAt: string;
            /**
             * Format: uuid
             * @description the user who named it; null for a restore point
             */
            createdBy: string | null;
        };
        CanvasVersions: {
            /** @description newest first, at most 100 */
            versions: components["schemas"]["CanvasVersion"][];
        };
        CanvasVersionPreview: {
            version: components["schemas"]["CanvasVersion"];
            /** @description the version’s canvas; no node is shown generating */
            canvas: {
                nodes: ({
                    id: string;
                    /** @enum {string} */
                    type: "upload";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upload" | "generation";
                        /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                        image?: string;
                        prompt?: string;
                        isGenerating?: boolean;
                        /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                        model?: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "generation";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upload" | "generation";
                        /** @description an image URL (http:, https:, data: or a path; at most 2048 characters), or a data: URL of an image, which a save stores as a file and replaces by its URL */
                        image?: string;
                        prompt?: string;
                        isGenerating?: boolean;
                        /** @description A generation node: the model it generates with (an id from GET /api/models); absent: the default */
                        model?: string;
                        /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                        seed?: number;
                        /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                        count?: number;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "text";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "text";
                        /** @description the text (may be empty) */
                        text: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "list";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "list";
                        /** @description its texts, at most 500, each at most as long as a prompt (may be empty) */
                        items: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "crop";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "crop";
                        /** @description the box’s left edge (pixels of the input, 0–65535) */
                        x: number;
                        /** @description the box’s top edge (pixels of the input, 0–65535) */
                        y: number;
                        /** @description the box’s width (pixels of the input, 1–65535) */
                        width: number;
                        /** @description the box’s height (pixels of the input, 1–65535) */
                        height: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "resize";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "resize";
                        /** @description the width in pixels (1–65535); absent: from the input's aspect ratio */
                        width?: number;
                        /** @description the height in pixels (1–65535); absent: from the input's aspect ratio */
                        height?: number;
                        /**
                         * @description contain: all of the image inside the box; cover: the box filled, the rest cut; fill: stretched
                         * @enum {string}
                         */
                        fit: "contain" | "cover" | "fill";
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "adjust";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "adjust";
                        /** @description brightness as a multiplier, 0–4 (1 = unchanged) */
                        brightness?: number;
                        /** @description contrast as a multiplier, 0–4 (1 = unchanged) */
                        contrast?: number;
                        /** @description saturation as a multiplier, 0–4 (1 = unchanged) */
                        saturation?: number;
                        /** @description hue turned by this many whole degrees, −360–360 */
                        hue?: number;
                        /** @description in shades of grey */
                        grayscale?: boolean;
                        /** @description in sepia tones */
                        sepia?: boolean;
                        /** @description colours inverted */
                        invert?: boolean;
                        /** @description Gaussian blur of this sigma in pixels, 0–100 (0 = none) */
                        blur?: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "mask";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "mask";
                        /** @description The mask: a PNG image URL, the size of its input image, white where an edit changes the image and black where it keeps it (absent: nothing painted yet) */
                        mask?: string;
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "edit";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "edit";
                        /** @description What to draw in the masked (or added) area; texts wired to its prompt input are joined after it */
                        prompt?: string;
                        /** @description The model it edits with: one that does inpaint (GET /api/models); absent: inpaint-telea */
                        model?: string;
                        /**
                         * @description inpaint: redraw the white of its mask; outpaint: extend the image by `outpaint` pixels on each side and draw the new area
                         * @enum {string}
                         */
                        mode: "inpaint" | "outpaint";
                        /** @description outpaint mode: the pixels added on each side, { top, right, bottom, left }, each 0–4096 */
                        outpaint?: {
                            top: number;
                            right: number;
                            bottom: number;
                            left: number;
                        };
                        /** @description The seed its model runs with, 0–2147483647 (absent: the service draws one when it first runs) */
                        seed?: number;
                        /** @description How many images it makes, 1–8, with seeds seed, seed + 1, … (absent: 1) */
                        count?: number;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "compose";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "compose";
                        /** @description Layer i's placement for the i-th connected image (bottom first), at most 32; a missing entry: at 0,0, full size, opaque, normal */
                        layers?: {
                            /** @description left edge on the composition, pixels */
                            x: number;
                            /** @description top edge on the composition, pixels */
                            y: number;
                            /** @description its image's size times this, 0.01–16 */
                            scale: number;
                            opacity: number;
                            /** @enum {string} */
                            blend: "normal" | "multiply" | "screen" | "overlay" | "darken" | "lighten" | "color-dodge" | "color-burn" | "hard-light" | "soft-light" | "difference" | "exclusion";
                            /** @description index of the mask (its masks input, in canvas order) that is its alpha */
                            mask?: number;
                            name?: string;
                            hidden?: boolean;
                        }[];
                        /** @description the composition's width in pixels (1–65535); absent: the first image's */
                        width?: number;
                        /** @description the composition's height in pixels (1–65535); absent: the first image's */
                        height?: number;
                        /** @description A colour #rrggbb under the layers; absent: transparent */
                        background?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "upscale";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "upscale";
                        /** @description The model it upscales with: one that does upscale (GET /api/models); absent: esrgan-slim-2x */
                        model?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                } | {
                    id: string;
                    /** @enum {string} */
                    type: "remove-background";
                    position: {
                        x: number;
                        y: number;
                    };
                    data: {
                        /** @enum {string} */
                        type: "remove-background";
                        /** @description The model it cuts the subject out with: one that does remove-background (GET /api/models) */
                        model?: string;
                        /** @description The result of its last run (written by the service) */
                        image?: string;
                        /** @description Whether its job is queued or running (written by the service) */
                        isGenerating?: boolean;
                        /** @description The key (SHA-256 hex) of the node its current result was made for (written by the service) */
                        resultKey?: string;
                        /** @description A node fanned out over a list: its results in item order, at most 1000 (written by the service) */
                        results?: string[];
                    };
                })[];
                edges: {
                    id: string;
                    source: string;
                    target: string;
                    sourceHandle?: string | null;
                    targetHandle?: string | null;
                }[];
            };
        };
        /** @description the canvas after the restore, as GET /api/user/project/canvas answers it */
        CanvasRestored: {
            canvas: components["schemas"]["Canvas"];
        };
        ApiToken: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @description the first characters of the secret (`ic_` and 6 more), to recognise it by */
            prefix: string;
            scopes: ("read" | "write" | "generate" | "billing")[];
            /** @description ISO 8601 */
            createdAt: string;
            /** @description ISO 8601; null: never expires */
            expiresAt: string | null;
            /** @description ISO 8601, recorded at most about once a minute; null: never used */
            lastUsedAt: string | null;
        };
        CreatedApiToken: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @description the first characters of the secret (`ic_` and 6 more), to recognise it by */
            prefix: string;
            scopes: ("read" | "write" | "generate" | "billing")[];
            /** @description ISO 8601 */
            createdAt: string;
            /** @description ISO 8601; null: never expires */
            expiresAt: string | null;
            /** @description ISO 8601, recorded at most about once a minute; null: never used */
            lastUsedAt: string | null;
            /** @description the secret to send as `Authorization: Bearer <token>`; shown only now (the service keeps its hash) */
            token: string;
        };
        ApiTokens: {
            /** @description oldest first */
            tokens: components["schemas"]["ApiToken"][];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
