// The toolkit's one error type, `GoshuinError`, is declared by the system module below this one; a program
// that imports GoshuinFormat meets it, and nothing else of that module, which is at package access.
@_exported public import GoshuinSystem
