// prctl(2), which Swift does not import (it is variadic): the explorer makes itself the subreaper of the
// actors its fork servers start (Exploring/ForkClient.swift), so that it waits for them as for its own.
#include <sys/prctl.h>

static inline int appgroupsim_become_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
}
