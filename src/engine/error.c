/* error.c: texts for the codes of mpiscope/error.h, generated from its map. */
#include "mpiscope/error.h"

const char *mpiscope_strerror(int err)
{
    switch (err) {
    case MPISCOPE_OK:
        return "success";
#define MPISCOPE_X_TEXT(name, value, msg)                                                                              \
    case MPISCOPE_##name:                                                                                              \
        return msg;
        MPISCOPE_ERRNO_MAP(MPISCOPE_X_TEXT)
#undef MPISCOPE_X_TEXT
    }
    return "unknown error";
}

const char *mpiscope_err_name(int err)
{
    switch (err) {
    case MPISCOPE_OK:
        return "MPISCOPE_OK";
#define MPISCOPE_X_NAME(name, value, msg)                                                                              \
    case MPISCOPE_##name:                                                                                              \
        return "MPISCOPE_" #name;
        MPISCOPE_ERRNO_MAP(MPISCOPE_X_NAME)
#undef MPISCOPE_X_NAME
    }
    return "MPISCOPE_UNKNOWN";
}
