// Filled by a later issue (see `issues`); the module exists so the layering of DESIGN.md §1 compiles from the start.
public enum SalesforceSDKModule {}
