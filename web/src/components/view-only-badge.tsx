/** Says that the canvas shown is read-only (a viewer's canvas page, a read-only link's page). */
export function ViewOnlyBadge() {
  return (
    <span className="badge view-only" title="You can pan and zoom this canvas, but not change it">
      View only
    </span>
  );
}
