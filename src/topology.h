/*
 * topology.h — Megatron-Core's rank-group generation (RankGenerator /
 * generate_masked_orthogonal_rank_groups) from closed-form strides.
 *
 * A global rank is a mixed-radix number whose digits are the coordinates
 * along the parallel dimensions, first token of the order string fastest:
 * `tp-cp-ep-dp-pp` by default, `tp-cp-ep-pp-dp` with use_tp_pp_dp_mapping.
 * Two grids share the ranks: the dense grid (TP, CP, EP=1, DP, PP) and the
 * expert grid (ETP, CP=1, EP, EDP, PP).  A group of a kind is every rank
 * obtained by varying the kind's dimensions while the others stay fixed.
 *
 * Groups come in Megatron's order (mixed-radix order of the unmasked
 * coordinates, first unmasked dimension fastest) and members in Megatron's
 * order (mixed-radix order of the masked coordinates).  Generating one kind
 * is O(W) time and memory, with no sorting or searching.
 *
 * Ownership: struct mcinit_topo holds no heap memory (no destroy needed);
 * struct mcinit_groups owns `members`, released by mcinit_groups_destroy.
 */
#ifndef MCINIT_TOPOLOGY_H
#define MCINIT_TOPOLOGY_H

#include <stdio.h>

#include "util.h"

/* Group kinds, in the order Megatron-Core creates their communicators (the
 * same order is used for NCCL communicator creation and in JSON output). */
enum mcinit_group_kind {
	MCINIT_GROUP_DP_CP,    /* dense dp-cp: gradient reduction, created first */
	MCINIT_GROUP_DP,       /* dense dp */
	MCINIT_GROUP_CP,       /* dense cp */
	MCINIT_GROUP_MP,       /* dense tp-pp */
	MCINIT_GROUP_TP,       /* dense tp */
	MCINIT_GROUP_PP,       /* dense pp */
	MCINIT_GROUP_EMBD,     /* per pp group: [first, last], [first] when PP = 1 */
	MCINIT_GROUP_POS_EMBD, /* per pp group: [first] */
	MCINIT_GROUP_TP_DP_CP, /* dense tp-dp-cp */
	MCINIT_GROUP_TP_DP,    /* dense tp-dp */
	MCINIT_GROUP_TP_CP,    /* dense tp-cp */
	MCINIT_GROUP_EP,       /* expert ep */
	MCINIT_GROUP_EP_TP,    /* expert tp (= etp) */
	MCINIT_GROUP_TP_EP_MP, /* expert tp-ep */
	MCINIT_GROUP_TP_EP_PP, /* expert tp-ep-pp */
	MCINIT_GROUP_EP_DP,    /* expert dp (= edp) */
	MCINIT_GROUP_COUNT
};

/* Bit set of kinds for the JSON writers: (1u << kind), or all of them. */
#define MCINIT_GROUP_BIT(k) (1u << (unsigned)(k))
#define MCINIT_GROUP_ALL    ((1u << MCINIT_GROUP_COUNT) - 1u)

/* Megatron-Core communicator name ("dp_cp", ...), the JSON key; NULL if k is out of range. */
const char *mcinit_group_kind_name(enum mcinit_group_kind k);
/* Megatron's RankGenerator token for the kind ("dp-cp", "tp-ep-pp"; "pp" for embd/pos_embd). */
const char *mcinit_group_kind_token(enum mcinit_group_kind k);
/* 1 when the kind is generated from the expert grid. */
int mcinit_group_kind_is_expert(enum mcinit_group_kind k);
/* Kind for a name as returned by mcinit_group_kind_name; -1 if unknown. */
int mcinit_group_kind_from_name(const char *name);

/* Dimensions of a grid, as named in the order string. */
enum mcinit_dim {
	MCINIT_DIM_TP,
	MCINIT_DIM_CP,
	MCINIT_DIM_EP,
	MCINIT_DIM_DP,
	MCINIT_DIM_PP,
	MCINIT_DIM_COUNT
};

struct mcinit_topo_sizes {
	long world;
	long tp, pp, cp, ep;
	long etp;             /* expert tensor parallel, already resolved (>= 1) */
	int tp_pp_dp_mapping; /* order tp-cp-ep-pp-dp instead of tp-cp-ep-dp-pp */
};

/* One grid: size and stride of each dimension, indexed by enum mcinit_dim. */
struct mcinit_topo_grid {
	long size[MCINIT_DIM_COUNT];
	long stride[MCINIT_DIM_COUNT];
};

struct mcinit_topo {
	struct mcinit_topo_sizes s;
	long dp, edp;                   /* derived: W/(tp·cp·pp), W/(etp·ep·pp) */
	int order[MCINIT_DIM_COUNT];    /* dimensions, fastest first */
	struct mcinit_topo_grid dense;  /* TP, CP, EP=1, DP, PP */
	struct mcinit_topo_grid expert; /* ETP, CP=1, EP, EDP, PP */
};

/* Validates the sizes (all >= 1; W divisible by tp·cp·pp and by etp·ep·pp;
 * with tp_pp_dp_mapping and PP > 1, EDP must equal DP so that both grids give
 * the same pipeline groups — rules MC034) and fills t.  0, or -1 with err
 * (EX_DATAERR) and t untouched. */
int mcinit_topo_init(struct mcinit_topo *t, const struct mcinit_topo_sizes *s,
                     struct mcinit_err *err);

/* "tp-cp-ep-dp-pp" or "tp-cp-ep-pp-dp" (static string). */
const char *mcinit_topo_order(const struct mcinit_topo *t);

/* Coordinates of a rank in both grids (pp is the same in both).  dp is the
 * rank's index in its dp group, edp in its ep_dp group. */
struct mcinit_coords {
	long tp, cp, dp, pp;
	long etp, ep, edp;
};
/* 0, or -1 when rank is outside [0, world). */
int mcinit_topo_coords(const struct mcinit_topo *t, long rank, struct mcinit_coords *c);
/* Rank at the given coordinates; -1 when a coordinate is out of range. */
long mcinit_topo_dense_rank(const struct mcinit_topo *t, long tp, long cp, long dp, long pp);
long mcinit_topo_expert_rank(const struct mcinit_topo *t, long etp, long ep, long edp, long pp);

/* All groups of one kind have the same size: one flat array, group g's
 * members at members[g*size .. g*size+size-1].  Owns members. */
struct mcinit_groups {
	long ngroups, size;
	long *members;
};
/* Group count and size of a kind without generating it; -1 for a bad kind. */
int mcinit_topo_group_shape(const struct mcinit_topo *t, enum mcinit_group_kind k, long *ngroups,
                            long *size);
/* Generates every group of kind k into out (which the caller later passes to
 * mcinit_groups_destroy).  0, or -1 with err (EX_SOFTWARE) for a bad kind. */
int mcinit_topo_groups(const struct mcinit_topo *t, enum mcinit_group_kind k,
                       struct mcinit_groups *out, struct mcinit_err *err);
void mcinit_groups_destroy(struct mcinit_groups *g);

/* Index of the group of kind k that holds rank (*color) and the rank's
 * position in it (*key): the NCCL split color/key.  Returns 0; 1 when the
 * rank is in no group of that kind (embd/pos_embd only: *color = *key = -1);
 * -1 for a bad kind or rank. */
int mcinit_topo_group_of(const struct mcinit_topo *t, enum mcinit_group_kind k, long rank,
                         long *color, long *key);

/* Per-rank seeds (run.md phase 8, Megatron's _set_random_seed and
 * model_parallel_cuda_manual_seed).  base = seed + 100·pp (+ 10·dp with
 * data_parallel_random_init) is also the data-parallel tracker seed. */
struct mcinit_seeds {
	long long base;            /* torch/numpy seed and data-parallel tracker */
	long long model_parallel;  /* base + 2718 + tp */
	long long expert_parallel; /* base + 1024 + 100·ep + etp */
};
/* The seeds of the rank at coordinates c (for callers that already have
 * them: the per-rank writers). */
void mcinit_topo_seeds_at(const struct mcinit_coords *c, long long seed, int dp_random_init,
                          struct mcinit_seeds *out);
/* 0, or -1 when rank is outside [0, world). */
int mcinit_topo_seeds(const struct mcinit_topo *t, long rank, long long seed, int dp_random_init,
                      struct mcinit_seeds *out);

/* JSON for the kinds in the bit set `kinds`, in creation order, compact:
 * {"dp_cp":[[0,2],[1,3]],"dp":[...],...}.  Appends to b. */
void mcinit_topo_json_groups(const struct mcinit_topo *t, unsigned kinds, struct mcinit_buf *b);
/* The same text streamed to f through a fixed 1 MiB chunk (never the whole
 * text in memory; f is flushed).  0, or -1 with err (EX_IOERR) on a write error. */
int mcinit_topo_json_groups_write(const struct mcinit_topo *t, unsigned kinds, FILE *f,
                                  struct mcinit_err *err);

#endif
