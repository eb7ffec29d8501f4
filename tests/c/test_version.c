/* test_version.c: the library says the version its headers carry, and the
 * string is the three numbers. */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "mpiscope/mpiscope.h"

int main(void)
{
    CHECK(strcmp(mpiscope_version(), MPISCOPE_VERSION_STRING) == 0);
    char numbers[64];
    snprintf(numbers, sizeof numbers, "%d.%d.%d", MPISCOPE_VERSION_MAJOR, MPISCOPE_VERSION_MINOR,
             MPISCOPE_VERSION_PATCH);
    CHECK(strcmp(numbers, MPISCOPE_VERSION_STRING) == 0);
    CHECK_DONE();
}
