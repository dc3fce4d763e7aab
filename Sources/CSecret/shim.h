#ifndef APPGROUPSIM_CSECRET_SHIM_H
#define APPGROUPSIM_CSECRET_SHIM_H
#include <libsecret/secret.h>
#endif
