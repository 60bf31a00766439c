// Placeholder until the command lands; keeps the build graph whole.
int main() { return 0; }
