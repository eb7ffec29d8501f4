"""The figures of result documents: what each shows as plain data, and its drawing."""
