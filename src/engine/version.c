/* version.c: the library's version (mpiscope/version.h). */
#include "mpiscope/version.h"

const char *mpiscope_version(void)
{
    return MPISCOPE_VERSION_STRING;
}
