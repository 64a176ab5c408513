-- Canvas nodes/edges are rewritten whole on every save (about once a second per open editor). pglz
-- compression of ~80 KB of JSON was a third of PostgreSQL's CPU per save; stored out of line without
-- compression it costs more WAL and disk but less CPU (`npm run load`: PostgreSQL CPU per save −30–40 %).
-- Existing rows keep their form until they are next written.
ALTER TABLE "canvases" ALTER COLUMN "nodes" SET STORAGE EXTERNAL;--> statement-breakpoint
ALTER TABLE "canvases" ALTER COLUMN "edges" SET STORAGE EXTERNAL;
