// prctl(2), which Swift does not import (it is variadic): the explorer makes itself the subreaper of the
// actors its fork servers start (Exploring/ForkClient.swift), so that it waits for them as for its own.
#include <sys/prctl.h>

static inline int appgroupsim_become_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
}

// posix_spawn_file_actions_addclosefrom_np (glibc 2.34 and later), declared by spawn.h only under _GNU_SOURCE,
// which the Glibc module is not built with: an explorer's spawn closes every descriptor it does not hand over
// (Exploring/ActorProcess.swift, closeInheritedDescriptors).
#include <spawn.h>
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

static inline int appgroupsim_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
