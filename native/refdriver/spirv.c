/* Reads a SPIR-V module's kernel interfaces: PoCL cannot say which arguments are pointers, so the driver reads it here. */
#include "refdriver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OP_ENTRY_POINT = 15,
    OP_EXECUTION_MODE = 16,
    OP_TYPE_BOOL = 20,
    OP_TYPE_INT = 21,
    OP_TYPE_FLOAT = 22,
    OP_TYPE_VECTOR = 23,
    OP_TYPE_ARRAY = 28,
    OP_TYPE_STRUCT = 30,
    OP_TYPE_POINTER = 32,
    OP_CONSTANT = 43,
    OP_FUNCTION = 54,
    OP_FUNCTION_PARAMETER = 55,
    OP_FUNCTION_END = 56,
    OP_DECORATE = 71,
};
enum { EXEC_MODEL_KERNEL = 6, MODE_LOCAL_SIZE = 17, MODE_SUBGROUP_SIZE = 35 };
enum { STORAGE_WORKGROUP = 4 };
enum { DECORATION_FUNC_PARAM_ATTR = 38, PARAM_ATTR_BYVAL = 2 };

#define MAX_BOUND (1u << 22)

typedef struct {
    uint16_t op;
    uint32_t a, b, c; /* opcode-specific operands (see type_size) */
    uint32_t word; /* offset of the instruction, for struct members */
} id_info;

typedef struct {
    const uint32_t *w;
    size_t n;
    id_info *ids;
    uint32_t bound;
    uint8_t *byval;
} module;

static size_t type_size(const module *m, uint32_t id, int depth, size_t *align)
{
    size_t dummy;
    if (align == NULL)
        align = &dummy;
    *align = 1;
    if (id >= m->bound || depth > 16)
        return 0;
    const id_info *t = &m->ids[id];
    switch (t->op) {
    case OP_TYPE_BOOL:
        return 1;
    case OP_TYPE_INT:
    case OP_TYPE_FLOAT:
        *align = t->a / 8;
        return t->a / 8;
    case OP_TYPE_POINTER:
        *align = 8;
        return 8;
    case OP_TYPE_VECTOR: {
        size_t el = type_size(m, t->a, depth + 1, NULL);
        size_t count = t->b == 3 ? 4 : t->b;
        *align = el * count;
        return el * count;
    }
    case OP_TYPE_ARRAY: {
        size_t el = type_size(m, t->a, depth + 1, align);
        if (t->b >= m->bound || m->ids[t->b].op != OP_CONSTANT)
            return 0;
        return el * m->ids[t->b].a;
    }
    case OP_TYPE_STRUCT: {
        uint32_t wc = m->w[t->word] >> 16;
        size_t off = 0, max_align = 1;
        for (uint32_t i = 2; i < wc; i++) {
            size_t al;
            size_t sz = type_size(m, m->w[t->word + i], depth + 1, &al);
            if (sz == 0)
                return 0;
            off = (off + al - 1) / al * al + sz;
            if (al > max_align)
                max_align = al;
        }
        *align = max_align;
        return (off + max_align - 1) / max_align * max_align;
    }
    default:
        return 0;
    }
}

static void fail(char *err, size_t errlen, const char *msg, size_t at)
{
    snprintf(err, errlen, "invalid SPIR-V: %s (at word %zu)", msg, at);
}

/* A copy of the module's words in this host's byte order (SPIR-V may be written in either). */
static uint32_t *host_order_words(const uint8_t *bytes, size_t size, char *err, size_t errlen)
{
    uint32_t *w = malloc(size);
    if (w == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    memcpy(w, bytes, size);
    if (w[0] == 0x03022307u)
        for (size_t i = 0; i < size / 4; i++)
            w[i] = __builtin_bswap32(w[i]);
    return w;
}

int rd_spirv_parse(const uint8_t *bytes, size_t size, rd_spirv_info *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (errlen)
        err[0] = '\0';
    if (size < 20 || size % 4) {
        snprintf(err, errlen, "invalid SPIR-V: size %zu is not a whole number of 32-bit words of at least a header", size);
        return -1;
    }
    module m = {0};
    m.n = size / 4;
    uint32_t *w = host_order_words(bytes, size, err, errlen);
    if (w == NULL)
        return -1;
    if (w[0] != 0x07230203u) {
        snprintf(err, errlen, "invalid SPIR-V: bad magic number 0x%08x", w[0]);
        free(w);
        return -1;
    }
    m.w = w;
    m.bound = w[3];
    if (m.bound == 0 || m.bound > MAX_BOUND) {
        fail(err, errlen, "id bound out of range", 3);
        free(w);
        return -1;
    }
    m.ids = calloc(m.bound, sizeof *m.ids);
    m.byval = calloc(m.bound, 1);
    uint32_t *entry_fn = calloc(m.bound, sizeof *entry_fn); /* entry function id -> kernel index + 1 */
    int rc = -1;
    if (m.ids == NULL || m.byval == NULL || entry_fn == NULL) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }

    /* Pass 1: types, constants, decorations, entry points, execution modes. */
    for (size_t i = 5; i < m.n;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (wc == 0 || i + wc > m.n) {
            fail(err, errlen, "instruction word count runs past the end of the module", i);
            goto done;
        }
        const uint32_t *o = &w[i + 1];
        uint32_t no = wc - 1;
#define NEED(k)                                                       \
    if (no < (k)) {                                                   \
        fail(err, errlen, "instruction has too few operands", i);     \
        goto done;                                                    \
    }
#define ID_OK(x)                                                      \
    if ((x) >= m.bound) {                                             \
        fail(err, errlen, "id exceeds the module's id bound", i);     \
        goto done;                                                    \
    }
        switch (op) {
        default:
            if (op >= 19 && op <= 39) { /* every OpType* has its result id first */
                NEED(1);
                ID_OK(o[0]);
                id_info *t = &m.ids[o[0]];
                t->op = (uint16_t)op;
                t->word = (uint32_t)i;
                t->a = no > 1 ? o[1] : 0;
                t->b = no > 2 ? o[2] : 0;
                t->c = no > 3 ? o[3] : 0;
                if (op == OP_TYPE_POINTER) { /* a = storage class, b = pointee */
                    NEED(3);
                }
            }
            break;
        case OP_CONSTANT:
            NEED(3);
            ID_OK(o[1]);
            m.ids[o[1]].op = OP_CONSTANT;
            m.ids[o[1]].a = o[2];
            break;
        case OP_DECORATE:
            NEED(2);
            ID_OK(o[0]);
            if (o[1] == DECORATION_FUNC_PARAM_ATTR && no >= 3 && o[2] == PARAM_ATTR_BYVAL)
                m.byval[o[0]] = 1;
            break;
        case OP_ENTRY_POINT: {
            NEED(3);
            ID_OK(o[1]);
            if (o[0] != EXEC_MODEL_KERNEL)
                break;
            size_t maxlen = (no - 2) * 4;
            const char *name = (const char *)&o[2];
            size_t len = strnlen(name, maxlen);
            if (len == maxlen) {
                fail(err, errlen, "entry point name is not terminated", i);
                goto done;
            }
            rd_kernel_info *grown = realloc(out->kernels, (out->nkernels + 1) * sizeof *grown);
            if (grown == NULL)
                goto done;
            out->kernels = grown;
            rd_kernel_info *k = &out->kernels[out->nkernels];
            memset(k, 0, sizeof *k);
            k->name = strndup(name, len);
            entry_fn[o[1]] = ++out->nkernels;
            break;
        }
        case OP_EXECUTION_MODE:
            NEED(2);
            ID_OK(o[0]);
            if (entry_fn[o[0]] == 0)
                break;
            if (o[1] == MODE_LOCAL_SIZE && no >= 5) {
                rd_kernel_info *k = &out->kernels[entry_fn[o[0]] - 1];
                k->reqd_group[0] = o[2];
                k->reqd_group[1] = o[3];
                k->reqd_group[2] = o[4];
            } else if (o[1] == MODE_SUBGROUP_SIZE && no >= 3) {
                out->kernels[entry_fn[o[0]] - 1].reqd_sub_group = o[2];
            }
            break;
        }
        i += wc;
    }

    /* Pass 2: parameters of each entry function. */
    rd_kernel_info *cur = NULL;
    for (size_t i = 5; i < m.n; i += w[i] >> 16) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        const uint32_t *o = &w[i + 1];
        if (op == OP_FUNCTION && wc >= 5) {
            cur = o[1] < m.bound && entry_fn[o[1]] ? &out->kernels[entry_fn[o[1]] - 1] : NULL;
        } else if (op == OP_FUNCTION_END) {
            cur = NULL;
        } else if (op == OP_FUNCTION_PARAMETER && cur != NULL && wc >= 3) {
            uint32_t type = o[0], id = o[1];
            if (type >= m.bound || id >= m.bound) {
                fail(err, errlen, "function parameter id exceeds the id bound", i);
                goto done;
            }
            rd_param *grown = realloc(cur->params, (cur->nparams + 1) * sizeof *grown);
            if (grown == NULL)
                goto done;
            cur->params = grown;
            rd_param *p = &cur->params[cur->nparams++];
            const id_info *t = &m.ids[type];
            p->size = 0;
            if (t->op == OP_TYPE_POINTER && m.byval[id]) {
                p->kind = RD_ARG_VALUE;
                p->size = type_size(&m, t->b, 0, NULL);
            } else if (t->op == OP_TYPE_POINTER) {
                p->kind = t->a == STORAGE_WORKGROUP ? RD_ARG_LOCAL_PTR : RD_ARG_GLOBAL_PTR;
                p->size = sizeof(void *);
            } else if (t->op == OP_TYPE_INT || t->op == OP_TYPE_FLOAT || t->op == OP_TYPE_VECTOR || t->op == OP_TYPE_STRUCT ||
                       t->op == OP_TYPE_ARRAY) {
                p->kind = RD_ARG_VALUE;
                p->size = type_size(&m, type, 0, NULL);
            } else {
                p->kind = RD_ARG_UNSUPPORTED; /* images, samplers, pipes, ... */
            }
        }
    }
    for (uint32_t k = 0; k < out->nkernels; k++)
        if (out->kernels[k].name == NULL)
            goto done;
    rc = 0;
done:
    if (rc != 0 && err[0] == '\0')
        snprintf(err, errlen, "out of memory while reading SPIR-V");
    if (rc != 0)
        rd_spirv_free(out);
    free(entry_fn);
    free(m.byval);
    free(m.ids);
    free(w);
    return rc;
}

void rd_spirv_free(rd_spirv_info *info)
{
    for (uint32_t i = 0; i < info->nkernels; i++) {
        free(info->kernels[i].name);
        free(info->kernels[i].params);
    }
    free(info->kernels);
    memset(info, 0, sizeof *info);
}

enum { OP_SPEC_CONSTANT_TRUE = 48, OP_SPEC_CONSTANT_FALSE = 49, OP_SPEC_CONSTANT = 50, DECORATION_SPEC_ID = 1 };

/* Writes each given value over the default of the specialization constant with that SpecId, in a copy of a module
   rd_spirv_parse accepted: translating the copy then bakes the values in, as it would the defaults. A value is read
   with the size of the constant's type (1 byte for a bool). */
int rd_spirv_specialize(const uint8_t *bytes, size_t size, uint32_t count, const uint32_t *spec_ids, const void *const *values,
                        uint32_t **out, char *err, size_t errlen)
{
    size_t n = size / 4;
    uint32_t *w = host_order_words(bytes, size, err, errlen);
    if (w == NULL)
        return -1;
    uint32_t bound = w[3];
    uint32_t *spec_of = malloc((size_t)bound * sizeof *spec_of); /* result id -> SpecId + 1, 0 for none */
    uint8_t *width = calloc(bound, 1), *is_signed = calloc(bound, 1), *found = calloc(count ? count : 1, 1);
    int rc = -1;
    if (spec_of == NULL || width == NULL || is_signed == NULL || found == NULL) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    memset(spec_of, 0, (size_t)bound * sizeof *spec_of);
    for (size_t i = 5; i < n;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (wc == 0 || i + wc > n)
            break;
        if (op == OP_DECORATE && wc >= 4 && w[i + 2] == DECORATION_SPEC_ID && w[i + 1] < bound)
            spec_of[w[i + 1]] = w[i + 3] + 1;
        else if (op == OP_TYPE_BOOL && wc >= 2 && w[i + 1] < bound)
            width[w[i + 1]] = 1;
        else if ((op == OP_TYPE_INT || op == OP_TYPE_FLOAT) && wc >= 3 && w[i + 1] < bound && w[i + 2] <= 64) {
            width[w[i + 1]] = (uint8_t)w[i + 2];
            is_signed[w[i + 1]] = op == OP_TYPE_INT && wc >= 4 && w[i + 3] == 1;
        } else if ((op == OP_SPEC_CONSTANT_TRUE || op == OP_SPEC_CONSTANT_FALSE || op == OP_SPEC_CONSTANT) && wc >= 3 &&
                   w[i + 1] < bound && w[i + 2] < bound && spec_of[w[i + 2]]) {
            uint32_t spec = spec_of[w[i + 2]] - 1, type = w[i + 1];
            for (uint32_t k = 0; k < count; k++) {
                if (spec_ids[k] != spec)
                    continue;
                found[k] = 1;
                if (op != OP_SPEC_CONSTANT) {
                    uint8_t v;
                    memcpy(&v, values[k], 1);
                    w[i] = (wc << 16) | (v ? OP_SPEC_CONSTANT_TRUE : OP_SPEC_CONSTANT_FALSE);
                } else if (width[type] > 32 && wc == 5) {
                    memcpy(&w[i + 3], values[k], 8); /* low-order word first, as SPIR-V literals are laid out */
                } else if (width[type] >= 8 && width[type] <= 32 && wc == 4) {
                    uint32_t v = 0, bits = width[type];
                    memcpy(&v, values[k], bits / 8);
                    if (bits < 32 && is_signed[type] && (v >> (bits - 1)) & 1)
                        v |= ~0u << bits; /* narrower signed literals are sign-extended to the word */
                    w[i + 3] = v;
                } else {
                    snprintf(err, errlen, "specialization constant %u has a type this driver cannot set", spec);
                    goto done;
                }
            }
        }
        i += wc;
    }
    for (uint32_t k = 0; k < count; k++)
        if (!found[k]) {
            snprintf(err, errlen, "the module has no specialization constant with SpecId %u", spec_ids[k]);
            goto done;
        }
    *out = w;
    w = NULL;
    rc = 0;
done:
    free(w);
    free(spec_of);
    free(width);
    free(is_signed);
    free(found);
    return rc;
}

enum {
    OP_UNDEF = 1,
    OP_CONSTANT_NULL = 46,
    OP_FUNCTION_CALL = 57,
    OP_VARIABLE = 59,
    OP_LOAD = 61,
    OP_ACCESS_CHAIN = 65,
    OP_IN_BOUNDS_ACCESS_CHAIN = 66,
    OP_PTR_ACCESS_CHAIN = 67,
    OP_IN_BOUNDS_PTR_ACCESS_CHAIN = 70,
    OP_COPY_OBJECT = 83,
    OP_CONVERT_U_TO_PTR = 120,
    OP_PTR_CAST_TO_GENERIC = 121,
    OP_GENERIC_CAST_TO_PTR = 122,
    OP_GENERIC_CAST_TO_PTR_EXPLICIT = 123,
    OP_BITCAST = 124,
    OP_SELECT = 169,
    OP_ATOMIC_LOAD = 227,
    OP_ATOMIC_STORE = 228,
    OP_ATOMIC_XOR = 242,
    OP_PHI = 245,
    OP_ATOMIC_FLAG_TEST_AND_SET = 318,
    OP_ATOMIC_FLAG_CLEAR = 319,
    OP_ATOMIC_FMIN_EXT = 5614,
    OP_ATOMIC_FMAX_EXT = 5615,
    OP_ATOMIC_FADD_EXT = 6035,
    STORAGE_CROSS_WORKGROUP = 5,
    STORAGE_GENERIC = 8,
};

/* Where an atomic instruction's pointer operand is (word offset from the opcode), 0 for any other instruction. */
static unsigned atomic_pointer_at(uint32_t op)
{
    if (op == OP_ATOMIC_STORE || op == OP_ATOMIC_FLAG_CLEAR)
        return 1;
    if ((op >= OP_ATOMIC_LOAD && op <= OP_ATOMIC_XOR) || op == OP_ATOMIC_FLAG_TEST_AND_SET || op == OP_ATOMIC_FMIN_EXT ||
        op == OP_ATOMIC_FMAX_EXT || op == OP_ATOMIC_FADD_EXT)
        return 3;
    return 0;
}

/* Instructions whose result may be a pointer: [opcode, result type, result id, ...]. */
static int makes_pointer(uint32_t op)
{
    switch (op) {
    case OP_UNDEF: case OP_CONSTANT_NULL: case OP_FUNCTION_PARAMETER: case OP_FUNCTION_CALL: case OP_VARIABLE: case OP_LOAD:
    case OP_ACCESS_CHAIN: case OP_IN_BOUNDS_ACCESS_CHAIN: case OP_PTR_ACCESS_CHAIN: case OP_IN_BOUNDS_PTR_ACCESS_CHAIN:
    case OP_COPY_OBJECT: case OP_CONVERT_U_TO_PTR: case OP_PTR_CAST_TO_GENERIC: case OP_GENERIC_CAST_TO_PTR:
    case OP_GENERIC_CAST_TO_PTR_EXPLICIT: case OP_BITCAST: case OP_SELECT: case OP_PHI:
        return 1;
    default:
        return 0;
    }
}

/*
 * PoCL 3.1's kernel library has the atomics only for global and local pointers, and llvm-spirv turns an atomic on a
 * generic pointer (OpenCL 2.0's atomic_load, atomic_store, atomic_fetch_add ... as clang emits them) into a call of a
 * generic-pointer function it lacks, so the module would not link. In a copy of a module rd_spirv_parse accepted, each
 * atomic instruction on a Generic pointer is given that pointer cast to CrossWorkgroup (OpGenericCastToPtr) instead,
 * adding the pointer types it needs. On PoCL's CPU device every address space is the host's one address space, so the
 * cast keeps the address, of global and local memory alike. *out is NULL when no atomic needed it.
 */
int rd_spirv_lower_generic_atomics(const uint8_t *bytes, size_t size, uint32_t **out, size_t *out_size, char *err,
                                   size_t errlen)
{
    *out = NULL;
    size_t n = size / 4;
    uint32_t *w = host_order_words(bytes, size, err, errlen);
    if (w == NULL)
        return -1;
    uint32_t bound = w[3], next = bound;
    /* Per id: storage class + 1 and pointee of a pointer type; type of a pointer-making result; the CrossWorkgroup
       pointer type to the same pointee as a Generic one (0 while there is none). */
    uint32_t *storage = calloc(bound, sizeof *storage), *pointee = calloc(bound, sizeof *pointee);
    uint32_t *type_of = calloc(bound, sizeof *type_of), *global_of = calloc(bound, sizeof *global_of);
    uint32_t *r = NULL;
    int rc = -1;
    if (storage == NULL || pointee == NULL || type_of == NULL || global_of == NULL) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    size_t atomics = 0;
    for (size_t i = 5; i < n;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (wc == 0 || i + wc > n)
            break;
        unsigned at = atomic_pointer_at(op);
        if (op == OP_TYPE_POINTER && wc >= 4 && w[i + 1] < bound && w[i + 3] < bound) {
            storage[w[i + 1]] = w[i + 2] + 1;
            pointee[w[i + 1]] = w[i + 3];
        } else if (makes_pointer(op) && wc >= 3 && w[i + 1] < bound && w[i + 2] < bound) {
            type_of[w[i + 2]] = w[i + 1];
        } else if (at && wc > at && w[i + at] < bound) {
            uint32_t t = type_of[w[i + at]];
            atomics += storage[t] == STORAGE_GENERIC + 1;
        }
        i += wc;
    }
    if (atomics == 0) {
        rc = 0;
        goto done;
    }
    /* An existing CrossWorkgroup pointer type to each pointee, else one to add after the Generic type. */
    for (uint32_t g = 0; g < bound; g++) {
        if (storage[g] != STORAGE_GENERIC + 1)
            continue;
        for (uint32_t c = 0; c < bound && !global_of[g]; c++)
            if (storage[c] == STORAGE_CROSS_WORKGROUP + 1 && pointee[c] == pointee[g])
                global_of[g] = c;
    }
    size_t cap = n + 4 * atomics + 4 * (size_t)bound;
    if ((r = malloc(cap * sizeof *r)) == NULL) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    memcpy(r, w, 5 * sizeof *r);
    size_t o = 5;
    for (size_t i = 5; i < n;) {
        uint32_t wc = w[i] >> 16, op = w[i] & 0xffff;
        if (wc == 0 || i + wc > n)
            break;
        unsigned at = atomic_pointer_at(op);
        uint32_t ptr = at && wc > at && w[i + at] < bound ? w[i + at] : 0, t = ptr ? type_of[ptr] : 0;
        if (ptr && storage[t] == STORAGE_GENERIC + 1 && global_of[t]) {
            uint32_t cast = next++;
            r[o++] = (4u << 16) | OP_GENERIC_CAST_TO_PTR;
            r[o++] = global_of[t];
            r[o++] = cast;
            r[o++] = ptr;
            memcpy(&r[o], &w[i], wc * sizeof *r);
            r[o + at] = cast;
        } else {
            memcpy(&r[o], &w[i], wc * sizeof *r);
        }
        o += wc;
        if (op == OP_TYPE_POINTER && wc >= 4 && w[i + 1] < bound && storage[w[i + 1]] == STORAGE_GENERIC + 1 &&
            !global_of[w[i + 1]]) {
            uint32_t g = w[i + 1], c = next++;
            r[o++] = (4u << 16) | OP_TYPE_POINTER;
            r[o++] = c;
            r[o++] = STORAGE_CROSS_WORKGROUP;
            r[o++] = pointee[g];
            global_of[g] = c;
        }
        i += wc;
    }
    r[3] = next;
    *out = r;
    *out_size = o * sizeof *r;
    r = NULL;
    rc = 0;
done:
    free(w);
    free(r);
    free(storage);
    free(pointee);
    free(type_of);
    free(global_of);
    return rc;
}
