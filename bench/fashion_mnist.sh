# bench/fashion_mnist.sh - sourced by the device scripts that train or run
# the training tests (bash, from the repository root). Defines
# fashion_mnist_dir, which prints where Fashion-MNIST is: the system's
# /usr/share/datasets/fashion-mnist or, where the image lacks it, the copy
# unpacked under /tmp/fm from the carried .data/dataset-fashion-mnist_*.deb.
fashion_mnist_dir() {
    local d=/usr/share/datasets/fashion-mnist
    if [ ! -f $d/train-images-idx3-ubyte.gz ] && ls .data/dataset-fashion-mnist_*.deb >/dev/null 2>&1; then
        mkdir -p /tmp/fm && dpkg-deb -x .data/dataset-fashion-mnist_*.deb /tmp/fm
        d=/tmp/fm/usr/share/datasets/fashion-mnist
    fi
    echo $d
}
