"""The trust boundary as folders: `host` builds and talks to sandboxes, `guest` is all a sandbox holds."""
