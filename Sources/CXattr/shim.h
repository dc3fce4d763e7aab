// Extended attributes (getxattr, setxattr, fsetxattr), which Swift's Glibc module does not export: a file's
// data protection class is kept in one (AppGroup/FileProtection.swift).
#include <sys/types.h>
#include <sys/xattr.h>
