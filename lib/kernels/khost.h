/* khost.h — kmath.h, kbody.h and kwalk.h configured for host C code (the reference,
 * the CPU backend, the tests).  Not a public header. */
#ifndef MCINIT_KHOST_H
#define MCINIT_KHOST_H

#include <math.h>
#include <string.h>

#define KM_FN static inline

/* The fast path's hardware approximations, emulated (kops.c): the correctly
 * rounded value moved by mcinit_km_approx_err times the documented worst
 * case (2 ulps for ex2.approx.ftz.f32, 1 ulp for rcp.approx.ftz.f32). */
float mcinit_km_ex2(float t);
float mcinit_km_rcp(float d);
/* 0: exact; 1 or -1: the worst case up or down; 2: up and down by turns;
 * times: a multiple of the worst case (the tests' broken hardware). */
extern int mcinit_km_approx_err, mcinit_km_approx_times;
#define KM_EX2(t) mcinit_km_ex2(t)
#define KM_RCP(d) mcinit_km_rcp(d)

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
#define KM_PACK2(dt, lo, hi)                                                                       \
	((dt) == MCINIT_DTYPE_BF16                                                                 \
	     ? (uint32_t)km_f32_to_bf16(lo) | (uint32_t)km_f32_to_bf16(hi) << 16                   \
	     : (uint32_t)km_f32_to_f16(lo) | (uint32_t)km_f32_to_f16(hi) << 16)
#define KM_RESTRICT restrict
#define KM_UNROLL

#include "kbody.h"

#endif
