#ifndef APPGROUPSIM_CSECRET_SHIM_H
#define APPGROUPSIM_CSECRET_SHIM_H
// secret-paths.h (search for item paths, read one secret by path) is behind this acknowledgement in
// libsecret's headers, although it has not changed since 0.18. LibsecretStore.lookup uses it: it reads a
// secret without making a D-Bus proxy for the item and its collection, and it sees a locked item
// without starting an unlock prompt (secret_service_lookup would prompt).
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>
#endif
