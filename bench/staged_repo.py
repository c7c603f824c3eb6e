import os, sys
row, phase = sys.argv[1], sys.argv[2]
def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
if phase == "base":
    write("src/lib.rs", "".join(f"pub fn f{i}() {{}}\n" for i in range(200)))
    if row in ("deleted-text", "modified-text"):
        write("data/table.csv", "".join(f"{i},{i * 7},{i % 13}\n" for i in range(200_000)))
elif row == "small":
    write("src/lib.rs", "".join(f"pub fn g{i}() {{}}\n" if i < 10 else f"pub fn f{i}() {{}}\n" for i in range(200)))
elif row == "added-text":
    write("data/big.csv", "".join(f"{i},{i * 7},{i % 13},some text in a column\n" for i in range(1_000_000)))
elif row == "added-binary":
    with open("data.bin", "wb") as f:
        f.write(os.urandom(40 * 1024 * 1024))
elif row == "many-files":
    for i in range(2000):
        write(f"gen/m{i // 100}/f{i}.txt", "".join(f"line {j} of file {i}\n" for j in range(20)))
elif row == "deleted-text":
    os.remove("data/table.csv")
elif row == "modified-text":
    lines = open("data/table.csv").read().split("\n")
    lines[100_000] = "changed"
    write("data/table.csv", "\n".join(lines))
