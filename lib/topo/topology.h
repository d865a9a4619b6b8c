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
 * Some kinds are not orthogonal: they are cut from another kind's groups
 * (embd from pp, hcp from cp, intra_dp_cp from dp_cp, intra/inter_ep_dp from
 * ep_dp, intra_dist_opt_instance from consecutive tp_ep_pp groups).  Which
 * kinds exist, their shapes and the creation order depend on the release
 * (mcinit_topo_features) and are checked against Megatron-Core's own
 * initialize_model_parallel by tests/oracle/topology-oracle.py.
 *
 * Ownership: struct mcinit_topo holds no heap memory (no destroy needed);
 * struct mcinit_groups owns `members`, released by mcinit_groups_destroy.
 */
#ifndef MCINIT_TOPOLOGY_H
#define MCINIT_TOPOLOGY_H

#include <stdint.h>
#include <stdio.h>

#include "core/util.h"

/* Group kinds: every communicator some release's initialize_model_parallel
 * creates, in an order every release's creation order is a subsequence of
 * (the JSON keys and the NCCL creation order follow it).  Which kinds a
 * topology has depends on the release and the sizes (mcinit_topo_has_kind). */
enum mcinit_group_kind {
	MCINIT_GROUP_GTP_REMAT,   /* dense gtp_remat: r0.19+, always (singletons at size 1) */
	MCINIT_GROUP_DP_CP,       /* dense dp-cp: gradient reduction (first after gtp_remat) */
	MCINIT_GROUP_DP_CP_AG,    /* dp_cp's all-gather twin: r0.16/r0.17 create_all_gather_group */
	MCINIT_GROUP_INTRA_DP_CP, /* dp_cp cut in num_distributed_optimizer_instances slices */
	MCINIT_GROUP_DP,          /* dense dp */
	MCINIT_GROUP_GTP_REMAT_DP,    /* dense gtp_remat-dp, gtp_remat > 1 */
	MCINIT_GROUP_GTP_REMAT_DP_CP, /* dense gtp_remat-dp-cp, gtp_remat > 1 */
	MCINIT_GROUP_CP,              /* dense cp */
	MCINIT_GROUP_HCP,             /* hierarchical cp: one level per size, inside the cp loop */
	MCINIT_GROUP_MP,              /* dense tp(-gtp_remat)-pp */
	MCINIT_GROUP_TP,              /* dense tp */
	MCINIT_GROUP_PP,              /* dense pp */
	MCINIT_GROUP_EMBD,            /* per pp group: [first, last], [first] when PP = 1 */
	MCINIT_GROUP_POS_EMBD,        /* per pp group: [first] */
	MCINIT_GROUP_TP_DP_CP,        /* dense tp(-gtp_remat)-dp-cp */
	MCINIT_GROUP_TP_DP,           /* dense tp(-gtp_remat)-dp */
	MCINIT_GROUP_TP_CP,           /* dense tp-cp */
	MCINIT_GROUP_EXPT_GTP_REMAT,  /* expert gtp_remat: r0.19+, always */
	MCINIT_GROUP_EP,              /* expert ep */
	MCINIT_GROUP_EP_TP,           /* expert tp (= etp) */
	MCINIT_GROUP_TP_EP_MP,        /* expert tp-ep */
	MCINIT_GROUP_TP_EP_PP,        /* expert tp-ep-pp */
	MCINIT_GROUP_TP_EP_GTP_REMAT_PP, /* expert tp-ep-gtp_remat-pp: r0.19+, always */
	MCINIT_GROUP_EP_DP,              /* expert dp (= edp) */
	MCINIT_GROUP_INTRA_EP_DP, /* ep_dp cut in instances (hierarchy level 0), instances > 1 */
	MCINIT_GROUP_INTER_EP_DP, /* across instances (hierarchy level 1), instances > 1 */
	MCINIT_GROUP_EP_GTP_REMAT_DP,         /* expert gtp_remat-dp, expert gtp_remat > 1 */
	MCINIT_GROUP_INTRA_DIST_OPT_INSTANCE, /* every release, created last */
	MCINIT_GROUP_COUNT
};

/* Bit set of kinds for the JSON writers: (1u << kind), or all of them. */
#define MCINIT_GROUP_BIT(k) (1u << (unsigned)(k))
#define MCINIT_GROUP_ALL    ((1u << MCINIT_GROUP_COUNT) - 1u)

/* Megatron-Core communicator name ("dp_cp", ...), the JSON key; NULL if k is out of range. */
const char *mcinit_group_kind_name(enum mcinit_group_kind k);
/* Megatron's RankGenerator token for the kind ("dp-cp", "tp-ep-pp"), or
 * for kinds cut from another kind's groups a short description ("pp: first,
 * last"); NULL if k is out of range. */
const char *mcinit_group_kind_token(enum mcinit_group_kind k);
/* 1 when the kind is generated from the expert grid. */
int mcinit_group_kind_is_expert(enum mcinit_group_kind k);
/* Kind for a name as returned by mcinit_group_kind_name; -1 if unknown. */
int mcinit_group_kind_from_name(const char *name);

/* Dimensions of a grid, as named in the order string (GTP: main's
 * weight-rematerialisation axis, injected after tp in the dense order and
 * after ep in the expert order; size 1 before r0.19). */
enum mcinit_dim {
	MCINIT_DIM_TP,
	MCINIT_DIM_GTP,
	MCINIT_DIM_CP,
	MCINIT_DIM_EP,
	MCINIT_DIM_DP,
	MCINIT_DIM_PP,
	MCINIT_DIM_COUNT
};

/* What a release's initialize_model_parallel does (mcinit_topo_features). */
#define MCINIT_TOPO_F_GTP      1u /* the gtp_remat axis and its groups (r0.19, main) */
#define MCINIT_TOPO_F_DP_CP_AG 2u /* create_all_gather_group (r0.16, r0.17) */
/* The features of a release named as mcinit_mversion_name names it ("r0.15",
 * "main"); 0 for an unknown name. */
unsigned mcinit_topo_features(const char *release);

#define MCINIT_HCP_MAX 16 /* hierarchical context-parallel levels */

struct mcinit_topo_sizes {
	long world;
	long tp, pp, cp, ep;
	long etp;             /* expert tensor parallel, already resolved (>= 1) */
	int tp_pp_dp_mapping; /* order tp-cp-ep-pp-dp instead of tp-cp-ep-dp-pp */
	/* The rest may stay 0 (= off / 1). */
	unsigned features;       /* MCINIT_TOPO_F_* of the release */
	long gtp, egtp;          /* gtp_remat sizes (dense, expert); need MCINIT_TOPO_F_GTP */
	long dist_opt_instances; /* num_distributed_optimizer_instances */
	int nhcp;                /* hierarchical_context_parallel_sizes, 0 = none */
	long hcp[MCINIT_HCP_MAX];
	int all_gather_group; /* create_all_gather_group; needs MCINIT_TOPO_F_DP_CP_AG */
};

/* One grid: size and stride of each dimension, indexed by enum mcinit_dim. */
struct mcinit_topo_grid {
	long size[MCINIT_DIM_COUNT];
	long stride[MCINIT_DIM_COUNT];
	int order[MCINIT_DIM_COUNT]; /* dimensions, fastest first */
};

/*
 * A family: groups of one kind that share a size, in creation order.  Most
 * kinds are one family; hcp has one per level.  A family either comes from
 * a grid (parent -1: the groups along the dimensions of its kind) or is cut
 * from the groups of its parent family: each `unit` consecutive parent
 * groups, concatenated, give `per_unit` groups.  `inside`: they are created
 * right after each parent unit (hcp inside the cp loop, embd after each pp
 * group), not in a loop of their own.
 */
struct mcinit_topo_fam {
	enum mcinit_group_kind kind;
	int level; /* hcp level, else 0 */
	int parent;
	int inside;
	long ngroups, size;
	long unit, per_unit;
	/* private to topology.c */
	int expert;
	unsigned mask;   /* dimensions of a grid family */
	int pick;        /* how a cut family picks members from its unit */
	long hu, hs, hl; /* picked members: unit[l*hs*hu + j*hu + u] for group l*hu + u */
};

#define MCINIT_FAM_MAX (MCINIT_GROUP_COUNT + MCINIT_HCP_MAX)

struct mcinit_topo {
	struct mcinit_topo_sizes s;
	long dp, edp;                   /* derived: W/(tp·gtp·cp·pp), W/(etp·ep·egtp·pp) */
	struct mcinit_topo_grid dense;  /* TP, GTP, CP, EP=1, DP, PP */
	struct mcinit_topo_grid expert; /* ETP, GTP=egtp, CP=1, EP, EDP, PP */
	int nfam;                       /* families, in creation order */
	struct mcinit_topo_fam fam[MCINIT_FAM_MAX];
};

/* Validates the sizes the way initialize_model_parallel asserts them (all
 * >= 1; W divisible by tp·gtp·cp·pp and by etp·ep·egtp·pp; with
 * tp_pp_dp_mapping and PP > 1, EDP must equal DP so that both grids give the
 * same pipeline groups — rules MC034; the hierarchical cp sizes multiply to
 * CP; DP·CP and EDP divisible by the optimizer instances; gtp_remat > 1 only
 * with one instance) and fills t with the release's families.  0, or -1 with
 * err (MCINIT_E_PARSE) and t untouched. */
int mcinit_topo_init(struct mcinit_topo *t, const struct mcinit_topo_sizes *s,
                     struct mcinit_err *err);

/* "tp-cp-ep-dp-pp" or "tp-cp-ep-pp-dp": the order Megatron-LM passes (static string). */
const char *mcinit_topo_order(const struct mcinit_topo *t);
/* The order the grid really uses, gtp_remat injected on r0.19+ (static string). */
const char *mcinit_topo_grid_order(const struct mcinit_topo *t, int expert);

/* Coordinates of a rank in both grids (pp is the same in both).  dp is the
 * rank's index in its dp group, edp in its ep_dp group; gtp/egtp are 0
 * before r0.19. */
struct mcinit_coords {
	long tp, cp, dp, pp;
	long etp, ep, edp;
	long gtp, egtp;
};
/* 0, or -1 when rank is outside [0, world). */
int mcinit_topo_coords(const struct mcinit_topo *t, long rank, struct mcinit_coords *c);
/* Rank at the given coordinates (gtp_remat coordinate 0); -1 when a
 * coordinate is out of range. */
long mcinit_topo_dense_rank(const struct mcinit_topo *t, long tp, long cp, long dp, long pp);
long mcinit_topo_expert_rank(const struct mcinit_topo *t, long etp, long ep, long edp, long pp);

/* All groups of one family have the same size: one flat array, group g's
 * members at members[g*size .. g*size+size-1].  Owns members.  Ranks are
 * stored in 32 bits (half the memory of a long: 6 MB instead of 12 for
 * every kind at 65,536 ranks), so worlds above INT32_MAX ranks have no
 * mcinit_groups (they would need over 8 GiB per kind anyway); one group at
 * a time (mcinit_topo_fam_group) has no such limit. */
struct mcinit_groups {
	long ngroups, size;
	int32_t *members;
};

/* ---- families (every kind, every hcp level) ---- */

/* Index of the family of kind k at hcp level `level` (0 for other kinds), or -1. */
int mcinit_topo_fam_find(const struct mcinit_topo *t, enum mcinit_group_kind k, int level);
/* Generates every group of family f into out (mcinit_groups_destroy frees
 * it).  0, or -1 with err (MCINIT_E_INTERNAL) for a bad family or a world
 * of more than INT32_MAX ranks. */
int mcinit_topo_fam_groups(const struct mcinit_topo *t, int f, struct mcinit_groups *out,
                           struct mcinit_err *err);
/* Members of group g of family f into out[0 .. size-1] (O(size)).  0, or -1
 * for a bad family or group. */
int mcinit_topo_fam_group(const struct mcinit_topo *t, int f, long g, long *out);
/* Index of the group of family f that holds rank (*color) and the rank's
 * position in it (*key): the NCCL split color/key.  Returns 0; 1 when the
 * rank is in no group of the family (embd/pos_embd only: *color = *key =
 * -1); -1 for a bad family or rank. */
int mcinit_topo_fam_group_of(const struct mcinit_topo *t, int f, long rank, long *color, long *key);

/* Every group in the order initialize_model_parallel creates them: what
 * `run` must follow (torch's new_group and NCCL's communicator creation are
 * collective, and SHARP applies to the first communicator). */
struct mcinit_topo_iter {
	const struct mcinit_topo *t;
	int step, child; /* family of the current loop; -1: the parent group itself */
	long g, j;       /* unit of the loop; group within the child's unit */
};
void mcinit_topo_iter_init(struct mcinit_topo_iter *it, const struct mcinit_topo *t);
/* The next group (*fam, *group); 0 after the last. */
int mcinit_topo_iter_next(struct mcinit_topo_iter *it, int *fam, long *group);

/* ---- kinds (the first family of a kind: hcp level 0) ----
 * A kind the topology does not create has no groups: shape 0 x 0, an empty
 * mcinit_groups, and group_of says "no group" (1), so callers that loop over
 * every kind need not ask mcinit_topo_has_kind first. */

/* 1 when the topology creates groups of kind k. */
int mcinit_topo_has_kind(const struct mcinit_topo *t, enum mcinit_group_kind k);
/* Group count and size of a kind without generating it; -1 for a bad kind. */
int mcinit_topo_group_shape(const struct mcinit_topo *t, enum mcinit_group_kind k, long *ngroups,
                            long *size);
/* As mcinit_topo_fam_groups, for the kind's first family. */
int mcinit_topo_groups(const struct mcinit_topo *t, enum mcinit_group_kind k,
                       struct mcinit_groups *out, struct mcinit_err *err);
void mcinit_groups_destroy(struct mcinit_groups *g);
/* As mcinit_topo_fam_group_of, for the kind's first family; 1 (color and
 * key -1) when the kind is not created. */
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

/* JSON for the kinds in the bit set `kinds` the topology creates, keys in
 * creation order, each kind's groups in creation order (hcp: the levels of
 * each cp group in turn), compact: {"dp_cp":[[0,2],[1,3]],"dp":[...],...}.
 * Appends to b. */
void mcinit_topo_json_groups(const struct mcinit_topo *t, unsigned kinds, struct mcx_buf *b);
/* The same text streamed to f through a fixed 1 MiB chunk (never the whole
 * text in memory; f is flushed).  0, or -1 with err (MCINIT_E_IO) on a write error. */
int mcinit_topo_json_groups_write(const struct mcinit_topo *t, unsigned kinds, FILE *f,
                                  struct mcinit_err *err);

#endif
