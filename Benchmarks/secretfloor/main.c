// bench-secret-floor setup|read|cleanup
//
// The floor under the widget's listing launch: a C program, no Swift runtime and no Foundation, that only
// does what that launch asks of the Secret Service through libsecret: connect, open a session (the DH key
// exchange), then for two items one SearchItems and one GetSecrets by path. `setup` stores the two items,
// `read` is the run that is timed, `cleanup` removes them. Exit 0 when the values read are the values stored.
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>
#include <stdio.h>
#include <string.h>

static const char *accounts[2] = {"floor-key", "floor-token"};

static GHashTable *attributes(const char *account) {
    GHashTable *a = g_hash_table_new(g_str_hash, g_str_equal);
    g_hash_table_insert(a, "service", "com.appgroupsim.bench-secret-floor");
    g_hash_table_insert(a, "account", (gpointer)account);
    return a;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: bench-secret-floor setup|read|cleanup\n");
        return 2;
    }
    GError *error = NULL;
    SecretService *service = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, NULL, &error);
    if (service == NULL) {
        fprintf(stderr, "bench-secret-floor: no Secret Service: %s\n", error ? error->message : "?");
        return 1;
    }
    for (int i = 0; i < 2; i++) {
        GHashTable *a = attributes(accounts[i]);
        if (strcmp(argv[1], "setup") == 0) {
            SecretValue *value = secret_value_new(accounts[i], -1, "text/plain");
            if (!secret_service_store_sync(service, NULL, a, NULL, "AppGroupSim benchmark floor", value, NULL, &error)) {
                fprintf(stderr, "bench-secret-floor: store: %s\n", error ? error->message : "?");
                return 1;
            }
        } else if (strcmp(argv[1], "cleanup") == 0) {
            secret_service_clear_sync(service, NULL, a, NULL, &error);
        } else {
            gchar **unlocked = NULL, **locked = NULL;
            secret_service_search_for_dbus_paths_sync(service, NULL, a, NULL, &unlocked, &locked, &error);
            if (unlocked == NULL || unlocked[0] == NULL) return 3;
            SecretValue *value = secret_service_get_secret_for_dbus_path_sync(service, unlocked[0], NULL, &error);
            if (value == NULL || strcmp(secret_value_get_text(value), accounts[i]) != 0) return 4;
        }
    }
    return 0;
}
