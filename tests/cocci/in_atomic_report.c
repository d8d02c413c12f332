// Coccinelle-style rule test: report mode prints one line per in_atomic() call.
struct ops { int (*in_atomic)(void); };

void *hit_gfp(size_t n)
{
	return kmalloc(n, in_atomic() ? GFP_ATOMIC : GFP_KERNEL);
}

int hit_guard(void)
{
	if (!in_atomic())
		msleep(1);
	return 0;
}

/* near misses: in_atomic() in a comment, a string, a parameter, a member call */
int near_miss(struct ops *ops, bool in_atomic)
{
	const char *s = "in_atomic()";

	if (in_atomic)
		return ops->in_atomic();
	return in_interrupt();
}
