/* khost.h — kmath.h and kbody.h configured for host C code (the reference,
 * the CPU backend, the tests).  Not a public header. */
#ifndef MCINIT_KHOST_H
#define MCINIT_KHOST_H

#include <math.h>
#include <string.h>

#define KM_FN static inline

#include "kmath.h"

#define KM_H2F(h) km_f16_to_f32(h)
#define KM_F2H(f) km_f32_to_f16(f)

static inline struct km_v16
km_host_ld16(const void *p)
{
	struct km_v16 v;

	memcpy(&v, p, sizeof v);
	return v;
}
#define KM_LD16(p)    km_host_ld16(p)
#define KM_ST16(p, v) memcpy((p), &(v), 16)

#include "kbody.h"

#endif
