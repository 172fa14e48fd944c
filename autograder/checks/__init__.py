"""Hidden checks, one module per chapter, one `<exercise>_checks()` builder per exercise."""
